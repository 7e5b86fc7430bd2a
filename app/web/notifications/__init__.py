"""Notifications: the signed-in user's notices (bell and list page)."""
