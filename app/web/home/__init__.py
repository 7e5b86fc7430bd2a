"""The home page: a welcome for visitors, each signed-in user's kinds of work."""
