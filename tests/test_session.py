"""The Session API: running, streaming, interrupting, history, snapshots."""

import json

import pytest

from emulator.replay import HISTORY_LIMIT
from emulator.session import Session, SnapshotError


def test_prompt_shows_user_host_and_home_as_tilde():
    s = Session()
    assert s.prompt == "alice@login01:~$ "
    s.execute("cd /tmp")
    assert s.prompt == "alice@login01:/tmp$ "
    s.execute("ssh node02")
    assert s.prompt == "alice@node02:~$ "


def test_streaming_command_yields_chunks_with_pauses():
    s = Session()
    run = s.run("watch -n 5 --count 3 hostname")
    chunks = []
    while (chunk := run.step()) is not None:
        chunks.append(chunk)
    assert [c.pause for c in chunks] == [5.0, 5.0, 0.0]
    assert all("login01" in c.text() for c in chunks)
    assert chunks[-1].done and run.status == 0


def test_interrupt_stops_at_the_next_chunk_with_130():
    s = Session()
    run = s.run("sleep 100")
    first = run.step()
    assert first is not None and not first.done
    run.interrupt()
    last = run.step()
    assert last.text() == "^C\n" and last.status == 130
    assert run.step() is None
    assert s.execute("echo $?") == ("130\n", 0)


def test_sleep_advances_the_simulated_clock():
    s = Session()
    start = s.cluster.clock.elapsed
    s.execute("sleep 90")
    assert s.cluster.clock.elapsed - start == 92.0  # 90 s plus the line's own cost


def test_history_is_capped_and_numbered_on():
    s = Session()
    for i in range(HISTORY_LIMIT + 5):
        s.execute(f"echo {i}")
    assert len(s.history) == HISTORY_LIMIT
    out, _ = s.execute("history 1")
    assert out == f"{HISTORY_LIMIT + 6:5d}  history 1\n"


def test_snapshot_round_trip_restores_cwd_env_files_host_and_clock():
    s = Session()
    for line in ("cd /tmp", "export X=7", "echo data > f", "ssh node03", "sleep 30"):
        s.execute(line)
    restored = Session.restore(json.loads(json.dumps(s.snapshot())))
    assert restored.prompt == s.prompt == "alice@node03:~$ "
    assert restored.execute("echo $X; ssh login01 cat /tmp/f") == ("7\ndata\n", 0)
    assert restored.cluster.clock.elapsed == s.cluster.clock.elapsed + 2.0


def test_snapshot_of_an_interrupted_line_replays_to_the_same_point():
    s = Session()
    run = s.run("sleep 10")
    run.step()
    run.step()
    run.interrupt()
    while run.step() is not None:
        pass
    restored = Session.restore(s.snapshot())
    assert restored.cluster.clock.elapsed == s.cluster.clock.elapsed
    assert restored.execute("echo $?") == ("130\n", 0)


def test_snapshot_stays_bounded_over_ten_thousand_commands():
    s = Session()
    for i in range(10_000):
        s.execute(("hostname", "cd /tmp", "echo x > /tmp/y", "date")[i % 4])
    data = s.snapshot()
    assert len(data["journal"]) <= HISTORY_LIMIT and len(data["history"]) <= HISTORY_LIMIT
    assert len(json.dumps(data)) < 200_000


def test_restore_refuses_other_schema_versions():
    for bad in (None, [], {"schema": 999}, {"schema": 1, "lab": 3, "seed": 0, "journal": []}):
        try:
            Session.restore(bad)
        except SnapshotError:
            continue
        raise AssertionError(f"accepted {bad!r}")


def test_reset_returns_to_a_fresh_session():
    s = Session(seed=4)
    s.execute("cd /tmp")
    s.reset()
    assert s.prompt == "alice@login01:~$ " and s.history == [] and s.seed == 4


def test_completion_of_commands_paths_and_hosts():
    s = Session()
    assert s.complete("hostn").matches == ["hostname"]
    assert "/etc/hostname" in s.complete("cat /etc/host").matches
    assert s.complete("ssh node0").matches[:2] == ["node01", "node02"]
    assert "--fqdn" in s.complete("hostname --f").matches


def test_snapshot_replays_a_lab_started_from_the_terminal():
    s = Session()
    s.execute("lab start fabric-triage --seed 1")
    s.execute("hint")
    restored = Session.restore(s.snapshot())
    assert (restored.lab, restored.seed, restored.origin) == ("fabric-triage", 1, (None, 0))
    assert restored.lab_progress.hints == 1


@pytest.mark.parametrize(("text", "more"), [
    ('echo "open', True), ("for i in 1 2; do", True), ("echo a |", True), ("echo a \\", True),
    ("if true; then echo x", True), ("echo done", False), ("echo a; |", False),
])
def test_incomplete_lines_ask_for_more(text, more):
    assert Session.incomplete(text) is more


def test_a_multi_line_loop_runs_once_complete():
    assert Session().execute("for i in 1 2\ndo echo $i\ndone") == ("1\n2\n", 0)
