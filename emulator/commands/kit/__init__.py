"""The shared kit every tool family stands on.

``command`` (the command entry, its context, the command table), ``spec``
(argument specs and help pages), ``coreio`` (coreutils' input and errors),
``finding`` (a learner's FIELD=VALUE finding), ``formats`` (printf
directives' limits), ``regex`` (POSIX regular expressions),
``proofs`` (the proof of a solve, for its completion code), ``sampling``
(monitors that run until stopped), ``units`` (sizes and durations per real
tool) and ``usage`` (getopt's wording). It imports only the labs (``proofs``),
the model, ``emulator.vfs``, ``emulator.errors`` and ``emulator.limits``.
"""

__all__: list[str] = []
