"""Values read back from a saved session are range-checked: one out of range falls back to its default
with a one-sentence notice, and the restored session keeps working (``date`` and ``uptime`` included)."""

import json

import pytest

from emulator import web
from emulator.limits import CLOCK_LIMIT_S
from emulator.session import Session
from tests.support import run


def saved() -> dict:
    session = Session()
    for line in ("export A=kept", "cd /tmp", "false"):
        session.execute(line)
    return session.snapshot()


@pytest.mark.parametrize("clock", [1e12, -5.0, float("inf"), float("nan"), CLOCK_LIMIT_S * 2])
def test_a_clock_out_of_range_continues_from_the_replayed_lines(clock: float) -> None:
    data = saved()
    data["clock"] = clock
    restored = Session.restore(data)
    assert restored.notices == ["The saved clock was out of range, so it continues from the replayed lines."]
    assert run(restored, "date") == "Wed Mar 11 09:00:08 UTC 2026\n"
    assert run(restored, "uptime").startswith(" 09:00:10 up ")
    assert run(restored, "echo $A; pwd") == "kept\n/tmp\n"


def test_a_clock_in_range_is_restored_without_a_notice() -> None:
    data = saved()
    data["clock"] = 3600.0
    restored = Session.restore(data)
    assert restored.notices == []
    assert run(restored, "date") == "Wed Mar 11 10:00:02 UTC 2026\n"


@pytest.mark.parametrize("status", [-1, 256, 10**20])
def test_a_status_out_of_range_is_taken_from_the_last_line_again(status: int) -> None:
    data = saved()
    data["status"] = status
    restored = Session.restore(data)
    assert restored.notices == ["The saved exit status was out of range, so the last line was run again for it."]
    assert run(restored, "echo $?") == "1\n"


def test_a_history_number_out_of_range_starts_again_at_one() -> None:
    data = saved()
    data["history_base"] = 10**15
    restored = Session.restore(data)
    assert restored.notices == ["The saved history numbering was out of range, so it starts again at 1."]
    assert run(restored, "history 2") == "    3  false\n    4  history 2\n"


def test_lines_longer_than_an_input_line_are_left_out() -> None:
    data = saved()
    data["journal"].append(["echo " + "x" * 200_000, None])
    data["history"].append("echo " + "x" * 200_000)
    restored = Session.restore(data)
    assert restored.notices == ["Saved lines longer than the input limit were left out."]
    assert restored.history == ["export A=kept", "cd /tmp", "false"]


def test_a_restore_out_of_time_counts_the_rest_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("emulator.session.RESTORE_TIME_LIMIT_S", -1.0)
    restored = Session.restore(saved())
    assert restored.notices == ["The saved session took more than -1 seconds to replay, so its last 3 lines "
                                "were not run again."]
    assert restored.history == ["export A=kept", "cd /tmp", "false"]
    assert run(restored, "echo $?") == "1\n"
    # The lines not run leave the journal: the next restore rebuilds this session, not the original.
    assert restored.journal == [("echo $?", None)]
    assert run(restored, "echo ${A:-unset} $PWD") == "unset /home/alice\n"


def test_the_page_hears_the_notice_in_one_line() -> None:
    data = saved()
    data["clock"], data["status"] = 1e12, 999
    opened = json.loads(web.open_session(None, 0, json.dumps(data)))
    assert opened["notice"] == ("The saved clock was out of range, so it continues from the replayed lines. "
                                "The saved exit status was out of range, so the last line was run again for it.")
    assert "\n" not in opened["notice"]
    web.close(opened["sid"])


def test_a_running_line_stops_at_the_clock_limit() -> None:
    session = Session()
    session.cluster.clock.advance(CLOCK_LIMIT_S - 10)
    out, status = session.execute("sleep 100; echo never")
    assert (out, status) == ("bash: the simulated clock stopped at its limit of 1000 years "
                             "(a limit of this simulated terminal)\n", 1)
    assert session.execute("date")[1] == 0
