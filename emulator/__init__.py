"""A simulated GPU training cluster for learners: a shell, a virtual filesystem,
one cluster state model, and emulated operator tools.

The public API is :class:`Session`: run a line, complete a line, snapshot and
restore. The browser worker and the command-line entry point both use it.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
