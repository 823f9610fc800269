"""The shared kit every tool family stands on.

``command`` (the command entry, its context, the command table), ``spec``
(argument specs and help pages), ``coreio`` (coreutils' input and errors),
``regex`` (POSIX regular expressions), ``units`` (sizes and durations per
real tool) and ``usage`` (getopt's wording). It imports only the model,
``emulator.vfs`` and ``emulator.errors``.
"""

__all__: list[str] = []
