"""Every limit of the simulated terminal, in one place.

The terminal runs in the reader's browser, where a command runs synchronously:
an input without bound would freeze the page or exhaust its memory. So what
could grow without bound stops at a limit named here, and reaching one is never
silent. The place that stops:

1. writes one line to stderr in the real tool's voice, naming the limit and
   ending with :data:`NOTE` (``seq: output stopped after 100000 lines (a limit
   of this simulated terminal)``);
2. returns a non-zero status wherever the real tool's answer would differ;
3. keeps the output it produced up to the limit.

Two limits are the real system's own and keep its words without the note: a
single argument longer than :data:`ARG_LIMIT` and an argument list longer than
:data:`ARGV_LIMIT` fail as Linux fails them (``Argument list too long``).

Each constant below says what it bounds and what the terminal says at the limit;
the section "The terminal's limits" of ``docs/emulator/index.md`` lists them for readers. This
module is on the bottom floor: it imports nothing of the emulator.
"""

from __future__ import annotations

#: What every message about a limit of this terminal ends with.
NOTE = "(a limit of this simulated terminal)"


def limit_reached(text: str) -> str:
    """``text`` followed by :data:`NOTE`: the one line a limit writes, without its newline."""
    return f"{text} {NOTE}"


# -- one input line ---------------------------------------------------------------------------
#: Characters in one input line, as typed or after history expansion (``!!``).
#: ``bash: input line of N characters is longer than 100000`` / ``bash: !!: expanded line ...``; status 1, nothing runs.
LINE_LIMIT = 100_000
#: Nesting of ``( )``, ``{ }``, loops, ``if``, ``case``, ``$( )``, ``${ }``, brace expressions in one line.
#: ``bash: syntax error: nesting deeper than 64 levels``, status 2; in ``$(( ))``: ``expression recursion level exceeded``, status 1.
NESTING_LIMIT = 64

# -- running a line ---------------------------------------------------------------------------
#: Iterations of one ``for``, ``while`` or ``until`` loop. ``bash: loop stopped after 10000 iterations``, status 1.
LOOP_LIMIT = 10_000
#: Commands one input line runs in all, nested loops included.
#: ``bash: stopped after running 50000 commands in one line``, status 1; the line ends.
COMMAND_LIMIT = 50_000
#: Commands running inside other commands at once: ``$( )`` in ``$( )``, ``ssh``, ``xargs``, ``sudo``...
#: ``bash: commands nested deeper than 16 levels``, status 1; the line ends.
DEPTH_LIMIT = 16

# -- words and values -------------------------------------------------------------------------
#: Characters in one expanded word, one shell variable's value, or one awk string.
#: ``bash: WORD: expansion longer than 2000000 characters`` (the line ends, status 1),
#: ``bash: NAME: value longer than 2000000 characters``, ``awk: run time error: string longer than ...`` (status 2).
VALUE_LIMIT = 2_000_000
#: Characters all shell variables hold together (each counted when a long value is set).
#: ``bash: NAME: variables longer than 20000000 characters in all``, status 1; the line ends.
VARIABLES_LIMIT = 20_000_000
#: Words one brace expression makes (``{1..20000}``).
#: ``bash: {1..20000}: brace expansion makes more than 10000 words``, status 1; the line ends.
BRACE_LIMIT = 10_000
#: Length of a value that ``${x%PATTERN}``, ``${x#PATTERN}`` and ``${x/PATTERN/...}`` match a glob pattern
#: against (literal patterns have no limit). ``bash: ${x%...}: pattern matching on more than 4096 characters``, status 1.
PATTERN_LIMIT = 4096
#: Linux's own limit on one argument of a program (MAX_ARG_STRLEN, bytes counted as characters here).
#: ``bash: /usr/bin/ls: Argument list too long``, status 126.
ARG_LIMIT = 131_072
#: Linux's own limit on a program's whole argument list (ARG_MAX); bash's builtins, which real bash does
#: not limit, stop here too: ``bash: echo: arguments longer than 2097152 characters in all``, status 1.
ARGV_LIMIT = 2_097_152
#: Field width or precision in a printf format (``printf``, awk's ``printf``/``sprintf``, ``seq -f``).
#: ``bash: printf: field width 999999999 is more than 100000``, status 1.
FIELD_LIMIT = 100_000

# -- output -----------------------------------------------------------------------------------
#: Characters one command may write, stdout and stderr together; what it wrote up to here is kept.
#: ``NAME: output stopped after 2000000 characters``, status 1.
OUTPUT_LIMIT = 2_000_000
#: Characters one line may show on the screen, all its commands together.
#: ``bash: output stopped after 4000000 characters``, status 1; the line ends.
SCREEN_LIMIT = 4_000_000
#: Characters one pipe or ``$( )`` may hold. ``bash: pipe: output stopped after 2000000 characters``, status 1.
PIPE_LIMIT = OUTPUT_LIMIT
#: Numbers one ``seq`` prints. ``seq: output stopped after 100000 lines``, status 1.
SEQ_LIMIT = 100_000

# -- files ------------------------------------------------------------------------------------
#: Characters in one file the learner writes. ``bash: FILE: File too large``, status 1.
FILE_LIMIT = 4_000_000
#: Directories one ``ls -R`` lists. ``ls: stopped after listing 1000 directories``, status 2.
LIST_LIMIT = 1_000
#: Entries ``find`` and ``grep -r`` visit under one directory. ``find: stopped after 100000 entries``, status 1.
WALK_LIMIT = 100_000

# -- commands that would run on -------------------------------------------------------------
#: Samples a monitor prints without a count, or with a larger one: ``nvidia-smi -l``, ``nvidia-smi dmon``/``pmon``,
#: ``dcgmi dmon``, ``vmstat`` and ``iostat`` with an interval. ``nvidia-smi: stopped after 3600 samples``, status 1.
SAMPLE_LIMIT = 3600
#: Refreshes ``watch`` makes when ``--count`` does not say (it may ask for up to :data:`WATCH_MAX`).
#: ``watch: stopped after 10 refreshes; --count sets how many``, status 1.
WATCH_COUNT = 10
#: Most refreshes ``watch --count`` may ask for. ``watch: stopped after 1000 refreshes``, status 1.
WATCH_MAX = 1_000
#: Simulated seconds ``journalctl -f`` and ``dmesg -w`` wait for new lines before they stop by themselves.
#: ``journalctl: stopped following after 3600 seconds``, status 1.
FOLLOW_WAIT_S = 3600
#: Looks ``tail -f`` takes at its files (every 10 simulated seconds, or ``-s``) before it stops by itself.
#: ``tail: stopped following after 12 looks``, status 1.
FOLLOW_LIMIT = 12
#: Longest simulated ``sleep``, in seconds (a week). ``sleep: stopped after 604800 seconds``, status 1.
SLEEP_LIMIT_S = 7 * 86_400.0
#: Command lines one ``xargs`` runs. ``xargs: stopped after running 1000 commands``, status 1.
XARGS_LIMIT = 1_000
#: Ranks one ``mpirun`` starts. ``mpirun: stopped after starting 1024 ranks``, status 1.
RANK_LIMIT = 1_024
#: Message sizes one NCCL test (``all_reduce_perf``...) sweeps.
#: ``all_reduce_perf: stopped after 2000 sizes; the average is of those``, status 1.
SIZES_LIMIT = 2_000
#: Statements and loop iterations one awk program may execute.
#: ``awk: program stopped after 2000000 steps``, status 2.
AWK_STEP_LIMIT = 2_000_000
#: Elements awk's ``split()`` makes, and the highest field number awk sets.
#: ``awk: run time error: split() makes more than 100000 elements``, status 2.
AWK_FIELD_LIMIT = 100_000

# -- time -------------------------------------------------------------------------------------
#: Real seconds one step of a command may run without answering (the only limit in real time: it never
#: changes an output, it only stops a command that would freeze the terminal). ``python -m emulator`` says
#: ``bash: LINE: stopped after 10 seconds; the session was restored without this line``, status 124
#: (``--timeout`` changes it); the browser's watchdog says ``The command stopped answering for 10 seconds...``,
#: restarts the runtime and restores the session from its journal without that line.
COMMAND_TIME_LIMIT_S = 10.0
#: Real seconds a restore may spend running the journal's lines again (a reload after a long session).
#: Past it the remaining lines are counted, not run: ``The saved session took more than 15 seconds to
#: replay, so its last N lines were not run again.``
RESTORE_TIME_LIMIT_S = 15.0
#: Simulated seconds the clock may run from its start (1000 years; ``date`` cannot print past year 9999).
#: ``bash: the simulated clock stopped at its limit of 1000 years``, status 1; the line ends. A saved clock
#: past it (or negative) is not restored: ``The saved clock was out of range, so it continues from the replayed lines.``
CLOCK_LIMIT_S = 1000 * 365 * 86_400.0

# -- saved sessions ---------------------------------------------------------------------------
#: Highest exit status, and the range a saved ``$?`` must lie in (0-255, as bash keeps it).
STATUS_MAX = 255
#: Highest history number a saved session may carry (a bad one falls back to 0).
HISTORY_NUMBER_LIMIT = 1_000_000_000

# -- the page ---------------------------------------------------------------------------------
#: Tab completions listed at once; the list ends with ``... and N more`` past it (the common prefix counts all).
MATCH_LIMIT = 1_000
#: Sessions the browser keeps open at once; opening one more closes the least recently used.
SESSION_LIMIT = 8
