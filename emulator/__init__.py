"""A simulated GPU training cluster for learners: a shell, a virtual filesystem,
one cluster state model, and emulated operator tools.

The public API is :class:`Session`: run a line, complete a line, snapshot and
restore. The browser worker and the command-line entry point both use it.
"""

import sys

from emulator.limits import LINE_LIMIT

__version__ = "0.1.0"

# Python reads and prints integers of at most 4300 digits (a guard against its quadratic conversion) and
# raises ValueError past them, which the tools do not expect of a number they have checked is all digits.
# An input line holds at most LINE_LIMIT characters, so numbers up to that length are read as the real
# tools read them (in a few hundredths of a second at most); longer ones still raise.
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(max(sys.get_int_max_str_digits(), LINE_LIMIT))

__all__ = ["__version__"]
