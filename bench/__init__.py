"""Benchmarks of the emulator and the site; run with ``python -m bench.run``."""
