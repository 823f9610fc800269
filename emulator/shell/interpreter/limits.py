"""How much one input line may do: loop iterations, commands run in all, nesting depth.

Past a limit the line stops with a message rather than hang the page.
"""

from __future__ import annotations

from emulator.errors import OutputLimitExceeded

#: Iterations after which a loop stops.
LOOP_LIMIT = 10_000
#: Commands one input line may run in all (nested loops included).
COMMAND_LIMIT = 50_000
#: Nesting depth of command substitutions and ``ctx.run`` calls.
DEPTH_LIMIT = 16


class WorkLimitExceeded(OutputLimitExceeded):
    """A line ran more commands than :data:`COMMAND_LIMIT` allows."""
