"""Benchmarks (`make bench`): slower measurements that never run in `make test`."""
