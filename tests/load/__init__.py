"""Load and soak scenarios (`make load`, `make soak`): not collected by pytest."""
