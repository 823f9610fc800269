"""Word expansion: braces, tilde, parameters, command substitution, arithmetic, field splitting and globbing.

``env`` states what expansion needs from the shell; ``braces``, ``arithmetic``
and ``parameters`` (``${...}``, with ``patterns`` matching globs against a
value) each expand one kind of part; ``words`` puts
them together in bash's order, and ``globs`` matches patterns relative to the
working directory. It imports the shell's lexer and the virtual filesystem's
pattern helpers; the interpreter imports it, through this face only.
"""

from emulator.shell.expand.arithmetic import arithmetic
from emulator.shell.expand.env import Env, ExpansionError
from emulator.shell.expand.globs import glob_relative
from emulator.shell.expand.words import expand_word

__all__ = ["Env", "ExpansionError", "arithmetic", "expand_word", "glob_relative"]
