"""Running Shiftdesk beyond one process on this machine: scale mode (`make run-scaled`)."""
