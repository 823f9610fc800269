"""Lines the volume fuzz (tests/fuzz/volume.py) found failing, each typed as a learner would and now
answered in the tool's own words."""

from __future__ import annotations

import time

import pytest

from emulator.session import Session

DIGITS = "1" + "0" * 5000
NOTE = "(a limit of this simulated terminal)"


@pytest.mark.parametrize(("line", "expected", "status"), [
    ("df -t nope", "df: no file systems processed\n", 1),
    ("df /etc/hosts -t nope", "df: no file systems processed\n", 1),
    (f"scancel {DIGITS}", f"scancel: error: Kill job error on job id {DIGITS}: Invalid job id specified\n", 1),
    (f"seq 3 | sed '{DIGITS}p'", "1\n2\n3\n", 0),
    (f"seq 3 | sed 's/1/x/{DIGITS}'", "1\n2\n3\n", 0),
    ("salloc -x 'node[' hostname", "salloc: error: Job submit/allocate failed: Invalid node name specified\n", 1),
    ("echo aab | grep -E '(a|a)*\\1b'", "grep: a back reference with a repeated group or more than one repetition "
     f"is refused {NOTE[:-1]}: matching it could take exponential time)\n", 2),
    ("echo aab | grep -E '(a)\\1b'", "aab\n", 0),
])
def test_found_lines_answer_in_the_tools_words(line: str, expected: str, status: int) -> None:
    assert Session().execute(line) == (expected, status)


def test_huge_numbers_are_read_without_a_python_error() -> None:
    session = Session()
    for line in (f"iostat {DIGITS} 1", f"diag-snapshot -j {DIGITS}"):
        out, _ = session.execute(line)
        assert "internal error" not in out, line


def test_srun_on_a_node_outside_the_allocation_is_refused() -> None:
    session = Session()
    session.execute("salloc | cat")
    out, status = session.execute("srun -w node01 hostname")
    assert status == 1 and out.endswith("Requested node configuration is not available\n")


def test_mpirun_places_ranks_on_cores_and_stops_at_its_rank_limit() -> None:
    session = Session()
    out, status = session.execute("mpirun -np 65536 hostname")
    assert status == 1 and "There are not enough slots available in the system to satisfy the 65536" in out
    started = time.process_time()
    out, status = session.execute("mpirun -np 60000 -H node01:60000 hostname | wc -l")
    assert out == f"mpirun: stopped after starting 1024 ranks {NOTE}\n1024\n"
    assert time.process_time() - started < 5


def test_a_deep_nesting_is_refused_before_the_whole_line_is_read() -> None:
    session = Session()
    started = time.process_time()
    out, status = session.execute("watch '" + "(" * 50_000 + "'")
    assert "nesting deeper than 64 levels" in out and status == 1
    assert time.process_time() - started < 1


def test_numbers_of_thousands_of_digits_are_read_as_numbers() -> None:
    session = Session()
    assert session.execute(f"head --lines {DIGITS} /etc/hosts | wc -l")[0] == session.execute("wc -l < /etc/hosts")[0]
    assert "internal error" not in session.execute(f"find /tmp -mindepth {DIGITS}")[0]


def test_an_nccl_test_with_more_gpus_than_a_node_fails_at_once() -> None:
    session = Session()
    session.execute("ssh node01")
    started = time.process_time()
    out, status = session.execute("alltoall_perf --ngpus 99999999999")
    assert status == 1 and "node01: Test CUDA failure common.cu:892 'invalid device ordinal'" in out
    assert time.process_time() - started < 5
