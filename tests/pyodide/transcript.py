"""Run scenarios through the Session API and record every output.

The same file runs in CPython (the test process) and inside Pyodide (under
Node), so the two transcripts can be compared line for line. It must stay
importable with the standard library and the emulator alone.
"""

from __future__ import annotations

import json


def run_scenarios(scenarios: list[dict]) -> list[dict]:
    """``[{"lab": id|None, "seed": n, "lines": [...]}]`` → one record per line run."""
    from emulator.session import Session

    records = []
    for scenario in scenarios:
        session = Session(lab=scenario["lab"], seed=scenario["seed"])
        for line in scenario["lines"]:
            text, status = session.execute(line)
            records.append({"lab": scenario["lab"], "seed": scenario["seed"], "line": line,
                            "status": status, "text": text})
    return records


def main(scenarios_json: str) -> str:
    return json.dumps(run_scenarios(json.loads(scenarios_json)))
