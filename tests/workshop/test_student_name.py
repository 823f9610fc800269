"""A student name from the page (a ``?student=`` link, passed to ``open_session``) is ``$STUDENT`` in the
session: the completion code carries it, and ``completion --student`` still overrides it."""

from __future__ import annotations

import json

from emulator import web
from emulator.completion import verify
from emulator.session import Session


def typed(sid: str, line: str) -> str:
    web.start(sid, line)
    out = []
    while True:
        reply = json.loads(web.step(sid))
        out += [text for _, text in reply["out"]]
        if reply["done"]:
            return "".join(out)


def test_the_page_s_student_name_is_carried_by_the_code_and_the_flag_overrides_it():
    sid = json.loads(web.open_session("storage", 4, None, "  Ana   Lima "))["sid"]
    truth = Session("storage", 4).cluster.truth()
    code = typed(sid, f"submit cause={truth['cause']}").splitlines()[-1]
    assert verify(code) == "OK lab=storage seed=4 student=Ana Lima hints=0 solutions=no"
    assert verify(typed(sid, "completion").strip()) == verify(code)
    assert verify(typed(sid, "completion --student Bo").strip()).startswith("OK lab=storage seed=4 student=Bo ")
    reset = json.loads(web.reset(sid, "Ana Lima"))
    assert typed(reset["sid"], "echo $STUDENT") == "Ana Lima\n"


def test_without_a_name_the_code_has_none_and_a_restore_takes_the_name_again():
    opened = json.loads(web.open_session("storage", 4, None))
    assert typed(opened["sid"], "echo ${STUDENT:-none}") == "none\n"
    state = web.snapshot(opened["sid"])
    again = json.loads(web.open_session("storage", 4, state, "Bo"))
    assert typed(again["sid"], "echo $STUDENT") == "Bo\n"
