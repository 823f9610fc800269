"""History expansion: the expanded line is echoed, run and recorded; unknown events fail."""

import pytest

from emulator.session import Session
from emulator.shell.history import expand
from emulator.shell.lexer import ShellSyntaxError

HISTORY = ["hostname", "echo a b", "nvidia-smi -L"]


@pytest.mark.parametrize(("line", "expected"), [
    ("!!", "nvidia-smi -L"),
    ("sudo !!", "sudo nvidia-smi -L"),
    ("echo !$", "echo -L"),
    ("!2", "echo a b"),
    ("!-3", "hostname"),
    ("!ec", "echo a b"),
    ("echo '!!'", "echo '!!'"),
    ("echo x != y", "echo x != y"),
])
def test_expansions(line, expected):
    assert expand(line, HISTORY, 0)[0] == expected


def test_numbers_continue_after_dropped_lines():
    assert expand("!12", HISTORY, 10)[0] == "echo a b"
    with pytest.raises(ShellSyntaxError, match="!5: event not found"):
        expand("!5", HISTORY, 10)


def test_session_echoes_and_records_the_expansion():
    s = Session()
    s.execute("echo hi")
    assert s.execute("!!") == ("echo hi\nhi\n", 0)
    assert s.history[-1] == "echo hi"
    assert s.execute("!zz") == ("bash: !zz: event not found\n", 1)
    assert s.history[-1] == "echo hi"
