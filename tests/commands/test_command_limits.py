"""Commands that stop at a limit of the terminal say so in one line, keep their output, and fail where the real tool
would have gone on (emulator/limits.py lists the limits)."""

import time

import pytest

from emulator import limits, vfs
from emulator.commands.awk import interpreter as awk_interpreter
from emulator.commands.files import find
from emulator.commands.kit import sampling
from emulator.commands.text import grep
from tests.support import on

NOTE = "(a limit of this simulated terminal)"


@pytest.fixture
def s():
    return on("node01")


def seconds(session, line: str) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        session.execute(line)
        best = min(best, time.perf_counter() - started)
    return best


def assert_linear(session, line: str, small: int) -> None:
    """``line`` with ``{n}`` four times larger takes well under the 16 times a quadratic cost would."""
    short, long = seconds(session, line.format(n=small)), seconds(session, line.format(n=4 * small))
    assert long < 8 * short + 0.05, f"{line}: {short:.3f}s at {small}, {long:.3f}s at {4 * small}"


# -- awk ---------------------------------------------------------------------------------------------
def test_awk_string_doubling_stops_at_the_value_limit(s):
    assert s.execute("awk 'BEGIN { s = \"x\"; while (1) s = s s }'") == (
        f"awk: run time error: string longer than 2000000 characters {NOTE}\n", 2)
    assert s.execute("awk 'BEGIN { s = \"ab\"; while (1) gsub(/./, \"&&&&&&&&&&&&&&&&\", s) }'") == (
        f"awk: run time error: string longer than 2000000 characters {NOTE}\n", 2)


def test_awk_printf_widths_and_steps(s, monkeypatch):
    monkeypatch.setattr(awk_interpreter, "AWK_STEP_LIMIT", 1000)
    assert s.execute("awk 'BEGIN { printf \"a%999999999d\", 1 }'") == (
        f"awk: run time error: printf: field width 999999999 is more than 100000 {NOTE}\n", 2)
    assert s.execute("awk 'BEGIN { x = sprintf(\"%.*f\", 999999999, 1) }'") == (
        f"awk: run time error: sprintf: precision 999999999 is more than 100000 {NOTE}\n", 2)
    assert s.execute("awk 'BEGIN { print \"before\"; while (1) x++ }'") == (
        f"before\nawk: program stopped after 1000 steps {NOTE}\n", 2)


def test_awk_split_past_the_field_limit_fails_instead_of_dropping_the_rest(s):
    program = "BEGIN { s = sprintf(\"%50001s%50000s\", \"\", \"\"); gsub(/ /, \"x \", s); print split(s, a) }"
    assert s.execute(f"awk '{program}'") == (f"awk: run time error: more than 100000 fields {NOTE}\n", 2)
    assert s.execute("awk 'BEGIN { print split(\"a b c\", a), a[3] }'") == ("3 c\n", 0)


# -- seq, xargs, sleep, watch, tail ----------------------------------------------------------------
def test_seq_format_widths_are_refused(s):
    assert s.execute("seq -f '%999999999f' 1") == (
        f"seq: field width 999999999 is more than 100000 {NOTE}\n", 1)


def test_xargs_says_when_it_stops(s):
    assert s.execute("seq 1001 | xargs -n 1 true; echo $?") == (
        f"xargs: stopped after running 1000 commands {NOTE}\n1\n", 0)
    assert s.execute("seq 3 | xargs -n 1 echo") == ("1\n2\n3\n", 0)


def test_sleep_past_a_week_says_so(s):
    assert s.execute("sleep 8d; echo $?") == (f"sleep: stopped after 604800 seconds {NOTE}\n1\n", 0)
    assert s.execute("sleep 7d; echo $?") == ("0\n", 0)


def test_watch_says_when_it_stops_by_itself(s):
    out, status = s.execute("watch -n 1 -t hostname")
    assert status == 1 and out.count("node01") == 10
    assert out.endswith(f"watch: stopped after 10 refreshes; --count sets how many {NOTE}\n")
    assert s.execute("watch -n 1 -t --count 2 hostname") == ("\x1b[H\x1b[2Jnode01\n" * 2, 0)
    assert s.execute("watch -n 1 -t --count 1001 true")[0].endswith(f"watch: stopped after 1000 refreshes {NOTE}\n")


# -- GPU and NCCL tools that loop ------------------------------------------------------------------
def test_nvidia_smi_loops_say_when_they_stop(s):
    stopped = f"nvidia-smi: stopped after 3600 samples {NOTE}\n"
    out, status = s.execute("nvidia-smi -l 1 --query-gpu=index --format=csv,noheader -i 0")
    assert status == 1 and out == "0\n" * 3600 + stopped
    out, status = s.execute("nvidia-smi dmon -i 0 -s u -c 4000")
    assert status == 1 and out.count("\n") == 2 + 3600 + 1 and out.endswith(stopped)
    assert s.execute("nvidia-smi dmon -i 0 -s u -c 2")[0].count("\n") == 4


def test_other_monitors_say_when_they_stop(s, monkeypatch):
    monkeypatch.setattr(sampling, "SAMPLE_LIMIT", 4)  # each vmstat or iostat sample reads the process table
    for line, prog in (("vmstat 1", "vmstat"), ("iostat -c 1", "iostat"), ("dcgmi dmon -e 155 -i 0", "dcgmi")):
        out, status = s.execute(line)
        assert status == 1 and out.endswith(f"{prog}: stopped after 4 samples {NOTE}\n"), line
    assert s.execute("vmstat 1 3 | wc -l; iostat -c 1 2 | wc -l; dcgmi dmon -e 155 -i 0 -c 4 | wc -l") == ("5\n8\n6\n", 0)


def test_an_nccl_sweep_past_its_sizes_says_its_average_is_partial(s):
    out, status = s.execute("all_reduce_perf -b 8 -e 1M -i 8 -g 8")
    assert status == 1
    assert out.endswith(f"all_reduce_perf: stopped after 2000 sizes; the average is of those {NOTE}\n")


# -- files -------------------------------------------------------------------------------------------
def test_find_and_grep_say_when_a_walk_stops(s, monkeypatch):
    for module in (vfs, find, grep):
        monkeypatch.setattr(module, "WALK_LIMIT", 5)
    s.execute("mkdir -p /tmp/w; cd /tmp/w; touch a b c d e f")
    assert s.execute("find . | wc -l") == (f"find: ‘.’: stopped after 5 entries {NOTE}\n5\n", 0)
    assert s.execute("grep -r x .; echo $?") == (f"grep: .: stopped after 5 entries {NOTE}\n2\n", 0)


def test_ls_recursive_says_when_it_stops(s):
    out, status = s.execute("mkdir -p /tmp/r/{1..1000}; ls -R /tmp/r")
    assert status == 2 and out.endswith(f"ls: stopped after listing 1000 directories {NOTE}\n")


def test_grep_only_matching_prints_every_match_of_a_line(s):
    assert s.execute("printf '%2000s\\n' | tr ' ' x | grep -o x | wc -l") == ("2000\n", 0)


# -- long words -------------------------------------------------------------------------------------
def test_ps_reads_a_long_word_in_linear_time(s):
    assert_linear(s, "W=$(printf '%{n}s' | tr ' ' a); ps $W | head -1", 20_000)


def test_a_long_cluster_of_flags_parses_in_linear_time(s):
    assert_linear(s, "F=$(printf '%{n}s' | tr ' ' l); ls -$F /tmp | head -1", 20_000)
    assert s.execute("F=$(printf '%100s' | tr ' ' l); ls -${F}d /tmp") == (s.execute("ls -ld /tmp")[0], 0)


def test_a_long_word_past_linux_argument_limit_is_refused(s):
    s.execute("W=$(printf '%100000s%40000s' a b | tr ' ' a)")
    assert s.execute("ps $W") == ("bash: /usr/bin/ps: Argument list too long\n", 126)
    assert s.execute(f"echo ${{#W}} {limits.ARG_LIMIT}") == ("140000 131072\n", 0)
