"""The JSON boundary the browser worker calls: shapes and round trips."""

import json

import pytest

from emulator import labs, web


def test_open_session_returns_banner_prompt_and_no_notice():
    opened = json.loads(web.open_session(None, 0, None))
    assert opened["prompt"] == "alice@login01:~$ "
    assert opened["lab"] is None and opened["seed"] == 0 and opened["notice"] is None
    assert "help" in opened["banner"] and "`" not in opened["banner"]


def test_start_and_step_until_done_gives_output_and_status():
    sid = json.loads(web.open_session(None, 0, None))["sid"]
    web.start(sid, "hostname")
    reply = json.loads(web.step(sid))
    assert reply == {"out": [["out", "login01\n"]], "pause": 0.0, "done": True, "status": 0,
                     "prompt": "alice@login01:~$ ", "lab": None, "seed": 0, "title": "Healthy sandbox", "goal": "",
                     "solved": None, "objectives": [], "request": None}


def test_unknown_command_goes_to_stderr_with_status_127():
    sid = json.loads(web.open_session(None, 0, None))["sid"]
    web.start(sid, "frobnicate")
    reply = json.loads(web.step(sid))
    assert reply["out"] == [["err", "bash: frobnicate: command not found\n"]]
    assert reply["status"] == 127


def test_unreadable_state_starts_fresh_with_a_notice():
    opened = json.loads(web.open_session(None, 0, "{not json"))
    assert opened["notice"] and opened["notice"].endswith(".")
    opened = json.loads(web.open_session(None, 0, json.dumps({"schema": -1})))
    assert opened["notice"]


def test_snapshot_restores_history():
    sid = json.loads(web.open_session(None, 0, None))["sid"]
    for line in ("echo one", "hostname"):
        web.start(sid, line)
        while not json.loads(web.step(sid))["done"]:
            pass
    state = web.snapshot(sid)
    assert json.loads(state)["schema"] >= 1
    restored = json.loads(web.open_session(None, 0, state))
    assert restored["notice"] is None
    assert json.loads(web.history(restored["sid"])) == ["echo one", "hostname"]


def test_complete_command_names():
    sid = json.loads(web.open_session(None, 0, None))["sid"]
    reply = json.loads(web.complete(sid, "hostn"))
    assert reply == {"start": 0, "matches": ["hostname"], "common": "hostname "}


def test_reset_keeps_lab_and_seed_and_clears_history():
    sid = json.loads(web.open_session(None, 3, None))["sid"]
    web.start(sid, "echo x")
    web.step(sid)
    opened = json.loads(web.reset(sid))
    assert opened["sid"] == sid and opened["seed"] == 3
    assert json.loads(web.history(sid)) == []


def test_interrupt_ends_a_streaming_line_with_130():
    sid = json.loads(web.open_session(None, 0, None))["sid"]
    web.start(sid, "sleep 50")
    first = json.loads(web.step(sid))
    assert not first["done"] and first["pause"] == 1.0
    web.interrupt(sid)
    last = json.loads(web.step(sid))
    assert last["done"] and last["status"] == 130 and last["out"] == [["out", "^C\n"]]


def test_unknown_lab_opens_the_sandbox_with_a_notice():
    opened = json.loads(web.open_session("no-such-lab", 0, None))
    assert opened["lab"] is None and "no-such-lab" in opened["notice"]


def test_state_of_another_lab_starts_fresh_with_a_notice():
    sid = json.loads(web.open_session(None, 0, None))["sid"]
    state = web.snapshot(sid)
    opened = json.loads(web.open_session(None, 5, state))
    assert opened["notice"] and opened["seed"] == 5


def test_least_recently_used_sessions_are_closed_beyond_the_limit():
    first = json.loads(web.open_session(None, 0, None))["sid"]
    for _ in range(web.SESSION_LIMIT):
        web.open_session(None, 0, None)
    try:
        web.history(first)
    except KeyError:
        return
    raise AssertionError("the oldest session stayed open")


def test_incomplete_tells_the_page_to_ask_for_another_line():
    assert json.loads(web.incomplete("for h in a b; do")) is True
    assert json.loads(web.incomplete("echo done")) is False


def _run(sid: str, line: str) -> dict:
    """Start ``line`` and step it to the end; the done reply."""
    web.start(sid, line)
    while not (reply := json.loads(web.step(sid)))["done"]:
        pass
    return reply


def test_open_session_names_the_lab_title_and_goal():
    opened = json.loads(web.open_session("late-rank", 0, None))
    assert (opened["lab"], opened["seed"], opened["title"]) == ("late-rank", 0, "A late rank")
    assert opened["goal"] == "Which rank is late, on which node and GPU, and why?"


def test_lab_start_is_reported_by_the_done_reply():
    sid = json.loads(web.open_session("late-rank", 0, None))["sid"]
    assert _run(sid, "hostname")["lab"] == "late-rank"
    done = _run(sid, "lab start input-wait --seed 3")
    assert (done["lab"], done["seed"], done["title"]) == ("input-wait", 3, "Input wait")
    assert done["goal"] == "What makes the training loop wait for its input?"
    state = json.loads(web.snapshot(sid))
    assert (state["lab"], state["seed"]) == ("late-rank", 0)  # the origin, which restores
    assert _run(sid, "lab start sandbox")["lab"] is None


def test_a_failed_lab_start_leaves_the_reported_lab_alone():
    sid = json.loads(web.open_session("late-rank", 2, None))["sid"]
    done = _run(sid, "lab start no-such-lab")
    assert done["status"] == 2 and (done["lab"], done["seed"]) == ("late-rank", 2)


def test_a_restored_session_reports_the_lab_it_switched_to_and_reset_returns_to_the_origin():
    sid = json.loads(web.open_session("late-rank", 0, None))["sid"]
    _run(sid, "lab start input-wait --seed 3")
    _run(sid, "hint")
    restored = json.loads(web.open_session("late-rank", 0, web.snapshot(sid)))
    assert restored["notice"] is None
    assert (restored["lab"], restored["seed"], restored["title"]) == ("input-wait", 3, "Input wait")
    assert "Progress: 1 of 4 hints used" in "".join(text for _, text in _run(restored["sid"], "lab")["out"])
    again = json.loads(web.reset(restored["sid"]))
    assert (again["lab"], again["seed"], again["title"]) == ("late-rank", 0, "A late rank")


PROBES = ("hostname", "sinfo", "squeue", "ssh node01 nvidia-smi -L", "ssh node01 dmesg | tail -n 3", "lab")


def _probe(sid: str) -> list[tuple[list, int]]:
    """Every chunk of output and the status of each probe line."""
    answers = []
    for line in PROBES:
        web.start(sid, line)
        out = []
        while not (reply := json.loads(web.step(sid)))["done"]:
            out += reply["out"]
        answers.append((out + reply["out"], reply["status"]))
    return answers


@pytest.mark.parametrize("lab_id", labs.known_labs())
def test_a_prepared_session_is_handed_out_once_and_answers_as_a_new_one(lab_id: str) -> None:
    web.prepare(lab_id, 2)
    assert (lab_id, 2) in web._spares
    spare = json.loads(web.open_session(lab_id, 2, None))
    assert (lab_id, 2) not in web._spares
    built = json.loads(web.open_session(lab_id, 2, None))
    assert _probe(spare["sid"]) == _probe(built["sid"])


def test_a_saved_session_is_replayed_onto_the_prepared_one() -> None:
    sid = json.loads(web.open_session("late-rank", 0, None))["sid"]
    _run(sid, "cd /tmp")
    _run(sid, "export COLOR=teal")
    state = web.snapshot(sid)
    web.close(sid)  # the worker closed it to save memory: the page reopens it from its saved state
    web.prepare("late-rank", 0)
    assert ("late-rank", 0) in web._spares
    restored = json.loads(web.open_session("late-rank", 0, state))
    assert ("late-rank", 0) not in web._spares
    assert _run(restored["sid"], "echo $COLOR $PWD")["out"][-1][1] == "teal /tmp\n"


def test_a_lab_open_now_or_built_already_is_not_built_again() -> None:
    """A click on a link to a page of the lab the reader is in builds nothing (the page rejoins that session)."""
    sid = json.loads(web.open_session("late-rank", 5, None))["sid"]
    web.prepare("late-rank", 5)
    assert ("late-rank", 5) not in web._spares
    web.close(sid)
    web.prepare("late-rank", 5)
    spare = web._spares[("late-rank", 5)]
    web.prepare("late-rank", 5)
    assert web._spares.pop(("late-rank", 5)) is spare


def test_preparing_an_unknown_lab_does_nothing() -> None:
    web.prepare("no-such-lab", 0)
    assert ("no-such-lab", 0) not in web._spares
