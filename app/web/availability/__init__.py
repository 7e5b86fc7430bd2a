"""The provider's availability pages."""
