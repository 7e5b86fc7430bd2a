"""`python -m app` runs the `shiftdesk` command."""

from app.cli import main

main()
