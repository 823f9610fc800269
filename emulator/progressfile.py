"""The progress file in the CLI: the Python twin of the site's ``progressfile.js``, one format for both.

``progress export PATH`` (:func:`collect`) writes what this session holds:
the terminal of the lab and seed it was opened with (its history, and its
journal as the ``state`` a page restores), any terminals an earlier import
brought in, and the labs solved (seed, hints, attempts of the solve with the
fewest hints), under :data:`FORMAT` and :data:`SCHEMA`, plus the student's
name when ``$STUDENT`` is set. ``progress import PATH`` (:func:`merge`)
checks the file whole (:func:`read`, the page's messages), then replays each
terminal's journal and adds the lab runs this session lacks, or solved with
fewer hints, so ``progress`` lists them and ``completion`` prints their codes
(with the file's student name as ``$STUDENT`` when the session has none).
A corrupt, foreign or newer file is refused and nothing changes.
"""

from __future__ import annotations

import json
import re
from typing import Any

from emulator import labs
from emulator.session import Session

__all__ = ["FORMAT", "SCHEMA", "ProgressFileError", "collect", "merge", "read"]

FORMAT = "gpu-cluster-handbook-progress"
SCHEMA = 1
#: The schema of one terminal record (the page's storage.js).
RECORD_SCHEMA = 1
_LAB = re.compile(r"[a-z0-9][a-z0-9-]*")


class ProgressFileError(ValueError):
    """A refused file: the message says why, in the learner's words."""


def _record(session: Session) -> dict[str, Any]:
    lab, seed = session.origin
    return {"schema": RECORD_SCHEMA, "lab": lab or labs.SANDBOX, "seed": seed, "history": list(session.history),
            "state": json.dumps(session.snapshot()), "scrollback": []}


def _solves(runs: list[labs.Progress]) -> dict[str, dict[str, int]]:
    """Lab id -> the solve with the fewest hints: {seed, hints, attempts}."""
    solved: dict[str, dict[str, int]] = {}
    for run in runs:
        if run.solved and run.lab != labs.SANDBOX and (run.lab not in solved or run.hints < solved[run.lab]["hints"]):
            solved[run.lab] = {"seed": run.seed, "hints": run.hints, "attempts": run.attempts}
    return solved


def collect(session: Session, student: str = "") -> dict[str, Any]:
    """The progress file's object for ``session``."""
    own = _record(session)
    terminals = {key: record for key, record in session.imported.items()}
    key = (own["lab"], own["seed"])
    if key not in terminals or len(terminals[key]["history"]) <= len(own["history"]):
        terminals[key] = own
    data: dict[str, Any] = {"format": FORMAT, "schema": SCHEMA, "solved": _solves(list(session.lab_runs.values())),
                            "terminals": [terminals[k] for k in sorted(terminals)]}
    if student:
        data["student"] = student
    return data


def _valid_record(record: Any) -> bool:
    return (isinstance(record, dict) and record.get("schema") == RECORD_SCHEMA
            and isinstance(record.get("lab"), str) and bool(_LAB.fullmatch(record["lab"]))
            and _count(record.get("seed")) and isinstance(record.get("history"), list)
            and all(isinstance(line, str) for line in record["history"])
            and (record.get("state") is None or isinstance(record.get("state"), str))
            and isinstance(record.get("scrollback"), list)
            and all(isinstance(c, list) and len(c) == 2 and isinstance(c[1], str) for c in record["scrollback"]))


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2 ** 53


def read(text: str) -> dict[str, Any]:
    """The file's object, checked whole (raises :class:`ProgressFileError` saying why it cannot be used)."""
    try:
        data = json.loads(text)
    except ValueError:
        raise ProgressFileError("This file is not a progress file: it is not readable JSON "
                                "(it may be cut short or damaged).") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ProgressFileError("This file is not a progress file of this site.")
    schema = data.get("schema")
    if isinstance(schema, int) and _count(schema) and schema > SCHEMA:
        raise ProgressFileError(f"This progress file was made by a newer version of this site (schema {schema}; "
                                f"this one reads {SCHEMA}). Import it where it was made, or on a copy of the site "
                                "as new.")
    damaged = ProgressFileError("This progress file is damaged: part of it cannot be read.")
    solved, terminals = data.get("solved"), data.get("terminals")
    if schema != SCHEMA or not isinstance(terminals, list) or not isinstance(solved, dict):
        raise damaged
    if not all(_valid_record(record) for record in terminals):
        raise damaged
    for lab, solve in solved.items():
        if not (_LAB.fullmatch(lab) and isinstance(solve, dict)
                and all(_count(solve.get(name)) for name in ("seed", "hints", "attempts"))):
            raise damaged
    if not isinstance(data.get("student", ""), str):
        raise damaged
    return data


def _runs_of(record: dict[str, Any]) -> list[labs.Progress]:
    """The lab runs a terminal's journal rebuilds (none when it has no state, or one this build cannot replay)."""
    if not record["state"]:
        return []
    try:
        return list(Session.restore(json.loads(record["state"])).lab_runs.values())
    except Exception:  # noqa: BLE001 - a terminal of another build or lab: its history is kept, its runs not
        return []


def merge(session: Session, text: str) -> tuple[int, int]:
    """Merge a progress file's text into ``session``: (terminals, lab runs) added or replaced."""
    data = read(text)
    terminals, runs = 0, 0
    rebuilt: list[labs.Progress] = []
    kept: dict[tuple[str, int], dict[str, Any]] = {}
    for record in data["terminals"]:
        key = (record["lab"], record["seed"])
        mine = session.imported.get(key)
        if mine is None or len(mine["history"]) < len(record["history"]):
            kept[key] = record
            terminals += 1
        rebuilt += _runs_of(record)
    for run in rebuilt:
        key = (run.lab, run.seed)
        mine_run = session.lab_runs.get(key)
        if mine_run is None or (run.solved and (not mine_run.solved or run.hints < mine_run.hints)):
            session.lab_runs[key] = run
            runs += 1
    session.imported.update(kept)
    student = " ".join(data.get("student", "").split())[:64]
    if student and not session.shell.lookup_var("STUDENT"):
        session.shell.export("STUDENT", student)
    return terminals, runs
