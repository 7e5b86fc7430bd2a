"""Shift swaps pages: the provider's /swaps and the manager's /manage/swaps."""
