"""Restoring a snapshot leaves out lines that change nothing, and ends in the same session.

The proof is behavioural: every lab's reference procedure, and a mixed session
(files, variables, aliases, ssh, failures read through ``$?``, an interrupted
stream), restored from its snapshot answers a set of probe commands exactly as
the original session does: same clock, same outputs, same ``$?``. A lab's
progress (attempts, hints, the procedure printed, enumeration) is rebuilt by
the replay, counted once.
"""

from __future__ import annotations

import pytest

from emulator import labs
from emulator.replay import reads_status, replay_free
from emulator.session import Session
from emulator.shell.interpreter import Shell

#: Lines a learner repeats; none changes anything a snapshot must replay.
READS = ["nvidia-smi", "nvidia-smi -L", "squeue", "sinfo -N", "ibstat", "dmesg -T | tail -3", "date",
         "nvidia-smi --query-gpu=index,temperature.gpu --format=csv,noheader", "cat /proc/uptime", "help",
         "ls -la /var/log > /dev/null 2>&1", "nvidia-smi topo -m", "hostname; uptime"]

#: Probes run on the original and on the restored session, in this order (``echo $?`` first).
PROBES = ["echo $?", "date '+%F %T'", "pwd", "hostname", "history 4", "squeue", "sacct -X -n", "sinfo",
          "nvidia-smi --query-gpu=index,pci.bus_id,temperature.gpu,clocks.sm --format=csv", "ls -la ~",
          "cat /proc/uptime", "env | sort", "alias", "lab", "cat /proc/sys/kernel/random/boot_id", "echo $RANDOM",
          "cat /tmp/status.txt /tmp/history.txt /tmp/when.txt"]

MIXED = [
    "nvidia-smi", "cd /tmp", "nvidia-smi -L", "export RUN=7", "echo hello > note.txt", "squeue", "false",
    "echo status=$?", "ls -la", "ls /nonexistent", "hostname", "alias ls='ls -1'", "ls", "sleep 30", "date",
    "ssh node03", "nvidia-smi -q -d ECC | head -20", "cat /proc/sys/kernel/random/boot_id", "exit", "sinfo",
    "false", "true", "ls missing-file", "cat note.txt", "echo $?", "ls /nope", "echo $? > /tmp/status.txt",
    "nvidia-smi -L", "history 3 > /tmp/history.txt", "squeue", "date +%s > /tmp/when.txt",
]


def counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The lines the shell actually runs from now on."""
    ran: list[str] = []
    original = Shell.run_line

    def run_line(self: Shell, line: str):  # type: ignore[no-untyped-def]
        ran.append(line)
        return original(self, line)

    monkeypatch.setattr(Shell, "run_line", run_line)
    return ran


def probe(session: Session) -> list[tuple[str, int, float]]:
    answers = []
    for line in PROBES:
        out, status = session.execute(line)
        answers.append((out, status, session.cluster.clock.elapsed))
    return answers


def assert_same_after_restore(session: Session) -> Session:
    snapshot = session.snapshot()
    restored = Session.restore(snapshot)
    assert restored.snapshot() == snapshot
    assert restored.prompt == session.prompt
    assert probe(restored) == probe(session)
    return restored


@pytest.mark.parametrize("lab_id", labs.known_labs())
def test_each_reference_procedure_with_repeated_reads_restores_to_the_same_session(lab_id: str) -> None:
    lab = labs.get(lab_id)
    session = Session(lab_id, 0)
    truth = session.cluster.truth()
    for n, step in enumerate(lab.solution):
        for line in step.run:
            session.execute(labs.substitute(line, truth))
            session.execute(READS[n % len(READS)])
            session.execute(READS[(n + 5) % len(READS)])
    assert_same_after_restore(session)


def test_a_mixed_session_restores_to_the_same_session(monkeypatch: pytest.MonkeyPatch) -> None:
    session = Session("nvlink", 3)
    for line in MIXED:
        session.execute(line)
    stream = session.run("ssh node03 nvidia-smi -l 2")
    chunks = [stream.step(), stream.step()]
    stream.interrupt()
    chunks += iter(stream.step, None)
    assert chunks[-1] is not None and chunks[-1].status == 130
    session.execute("nvidia-smi -L")
    ran = counting(monkeypatch)
    assert_same_after_restore(session)
    replayed = ran[:len(ran) - len(PROBES) * 2]
    # Reads followed by a line that cannot see their $? are left out; the rest run.
    assert "nvidia-smi" not in replayed and "squeue" not in replayed and "hostname" not in replayed
    assert {"false", "echo status=$?", "cd /tmp", "ls", "cat note.txt"} <= set(replayed)
    # ... but not a read once its command is aliased (the alias could do anything).
    assert "ls /nonexistent" not in replayed and "ls missing-file" in replayed
    # The last read too: the snapshot records its $?.
    assert replayed[-1] == "ssh node03 nvidia-smi -l 2"


def test_the_last_read_is_left_out_and_its_status_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    session = Session()
    session.execute("cd /tmp")
    session.execute("ls /nonexistent")
    assert session.snapshot()["status"] == 2
    ran = counting(monkeypatch)
    restored = Session.restore(session.snapshot())
    assert ran == ["cd /tmp"]
    assert restored.execute("echo $?") == ("2\n", 0)


def test_a_snapshot_without_a_status_replays_its_last_line(monkeypatch: pytest.MonkeyPatch) -> None:
    session = Session()
    session.execute("ls /nonexistent")
    older = {key: value for key, value in session.snapshot().items() if key != "status"}
    ran = counting(monkeypatch)
    assert Session.restore(older).execute("echo $?") == ("2\n", 0)
    assert ran[0] == "ls /nonexistent"


def test_restoring_500_reads_runs_a_tenth_of_the_lines_or_fewer(monkeypatch: pytest.MonkeyPatch) -> None:
    session = Session()
    session.execute("cd /tmp")
    for n in range(500):
        session.execute(READS[n % len(READS)])
    session.execute("date +%s > /tmp/when.txt")
    assert len(session.snapshot()["journal"]) == 502
    ran = counting(monkeypatch)
    assert_same_after_restore(session)
    replayed = len(ran) - len(PROBES) * 2
    assert replayed * 10 <= 502 and replayed == 2, ran[:replayed]


def test_restore_runs_the_lines_that_change_or_can_observe_state() -> None:
    assert replay_free("nvidia-smi -q -i 0 -d ECC | grep -i volatile")
    assert replay_free("squeue -u alice > /dev/null 2>&1")
    for line in ["nvidia-smi -l 1", "nvidia-smi -r -i 0", "nvidia-smi -pm 1", "nvidia-smi dmon", "tail -f x",
                 "dmesg -w", "dmesg -Tw", "less x", "sleep 1", "echo $HOME", "echo $(date)", "echo hi > f",
                 "X=1 ls", "uniq a b", "env ls", "ls &", "time ls", "! ls", "cat <<EOF\nx\nEOF", "echo !!",
                 "for i in 1; do ls; done", "cat < f", "watch ls", "history -c"]:
        assert not replay_free(line), line
    assert not replay_free("ls", {"ls": "rm -f x"})
    assert reads_status("echo $?") and reads_status("exit") and reads_status("bash run.sh") and reads_status("# x")
    assert reads_status("ll", {"ll": "ls -alF"})
    assert not reads_status("touch f") and not reads_status("cd /tmp")


def lab_run(session: Session) -> None:
    """Hints, a refused and two wrong findings, the procedure printed, an enumerating loop that solves."""
    truth = session.cluster.truth()
    session.execute("hint")
    session.execute("hint")
    session.execute(f"submit node={truth['node']} cause=gremlins")
    session.execute("submit node=node01 cause=nvlink")
    session.execute(f'submit node={truth["node"]} cause="nccl settings"')
    session.execute("solutions")
    session.execute("solutions --show")
    session.execute("for c in nccl fabricmanager nvlink; do for n in node01 node02; do "
                    "submit node=$n cause=$c; done; done")
    session.execute("hint")


def test_lab_counts_survive_a_restore_once_and_are_not_counted_again() -> None:
    session = Session("nvlink", 1)
    lab_run(session)
    progress = session.lab_progress
    assert progress is not None
    assert (progress.attempts, progress.hints, progress.solutions, progress.enumerated) == (8, 2, True, True)
    restored = assert_same_after_restore(session)
    assert restored.lab_progress == progress
    again = Session.restore(restored.snapshot())
    assert again.lab_progress == progress
    assert again.revealed == {"nvlink"}


def test_lab_counts_survive_a_restore_onto_a_prepared_session_and_a_lab_started_later() -> None:
    session = Session()
    session.execute("solutions nvlink --show")
    session.execute("lab start nvlink --seed 1")
    lab_run(session)
    spare = Session(None, 0)
    restored = Session.restore(session.snapshot(), spare)
    assert restored is spare
    assert restored.lab_runs == session.lab_runs and restored.lab_progress is not None
    assert restored.lab_progress.solutions
    assert restored.execute("lab")[0] == session.execute("lab")[0]
