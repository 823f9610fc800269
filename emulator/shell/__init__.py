"""The shell: lexer, parser, word expansion, interpreter, history, completion, and the builtins that change its state.

It runs every command through one table (:mod:`emulator.shell.table`): the
registry's tool families plus its own builtins (:mod:`emulator.shell.builtins`).
It may import everything below it (commands, labs, hostfs, cluster, vfs);
only the facades (``session``, ``web``, ``__main__``) import it.
"""

__all__: list[str] = []
