"""Benchmarks run explicitly: `pytest bench --benchmark-only` (not part of the default test paths)."""
