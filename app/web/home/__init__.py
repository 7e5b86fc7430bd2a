"""The home page: sign-in for visitors, each signed-in user's kinds of work."""
