"""Signing in and out: the OIDC redirect, its callback, sign-out and the signed-out page."""
