"""The command-line entry point's timeout: a command that computes for too long is stopped with one
line on stderr and status 124, and the session goes on as it was before that line."""

import subprocess
import sys

#: A line that computes for well over a tenth of a second (30,000 assignments), and changes state.
SLOW = "for i in $(seq 10000); do for j in 1 2 3; do X=$X.; done; done"


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "emulator", *args], input=stdin, capture_output=True,
                          text=True, timeout=120, check=False)


def test_a_slow_line_is_stopped_with_a_message_and_status_124():
    done = cli("--timeout", "0.1", "-c", SLOW)
    assert done.returncode == 124
    assert done.stderr == ("bash: for: stopped after 0.1 seconds; the session was restored without this line "
                           "(a limit of this simulated terminal)\n")


def test_the_session_continues_without_the_stopped_line():
    script = "\n".join(["export A=kept", "cd /tmp", "hostname", SLOW, "echo A=$A X=${#X} $? $(pwd)", "exit"])
    done = cli("--timeout", "0.1", stdin=script + "\n")
    assert "stopped after 0.1 seconds" in done.stderr
    # The earlier lines' effects stay, the stopped line's assignments are gone, and $? says 124.
    assert "A=kept X=0 124 /tmp\n" in done.stdout


def test_the_default_timeout_lets_ordinary_slow_lines_finish():
    done = cli("-c", SLOW + "; echo ${#X}")
    assert (done.returncode, done.stdout, done.stderr) == (0, "30000\n", "")
