"""Free text that cannot be judged is refused in the field's own name and costs no attempt, typed through the
shell: words no phrase knows, and umbrella words (``[[check.broad]]``) that fit several values, which get
the lab's question back and never the values themselves. (The schema's checks are at the end.)"""

from __future__ import annotations

import re

import pytest

from emulator import labs
from emulator.errors import LabError
from emulator.labs.loader import _lab_files
from emulator.session import Session
from tests.support import on, run

BROAD_LABS = [i for i in labs.known_labs() if labs.get(i).check is not None and labs.get(i).check.broad]


def finding(session: Session, **typed: str) -> str:
    """``submit`` with the truth in every field but those ``typed``, each quoted as typed."""
    truth = session.cluster.truth()
    lab = labs.get(session.lab)
    assert lab.check is not None
    parts = [f'{name}="{typed[name]}"' if name in typed else f"{name}={truth[name]}" for name in lab.check.fields]
    return "submit " + " ".join(parts)


def attempts_shown(session: Session) -> str:
    """The progress line ``lab`` prints."""
    return next(line for line in run(session, "lab").splitlines() if line.startswith("Progress:"))


def test_an_unknown_why_is_refused_in_its_own_name_and_not_counted():
    session = on(None, "checkpointing", 0)
    out, status = session.execute(finding(session, why="gremlins in the rack"))
    assert (out, status) == ('submit: why="gremlins in the rack": not a reason this cluster can show; '
                             "say what you saw\n", 2)
    assert "0 attempts" in attempts_shown(session)
    truth = session.cluster.truth()
    assert run(session, finding(session, why=truth["why"])).startswith("✓ Correct")
    assert "Progress: solved in 1 attempt," in run(session, "lab")


def test_an_unknown_cause_in_another_multi_field_lab_is_refused_and_not_counted():
    session = on(None, "topology", 1)
    out, status = session.execute(finding(session, cause="bad vibes"))
    assert (out, status) == ('submit: cause="bad vibes": not a cause this cluster can show; say what you saw\n', 2)
    assert "0 attempts" in attempts_shown(session)


@pytest.mark.parametrize(("lab_id", "field", "typed", "ask"), [
    ("topology", "cause", "NUMA misbinding", "say what is bound wrong"),
    ("topology", "cause", "rank 53 is on the wrong socket", "say what is bound wrong"),
    ("checkpointing", "why", "full", "say which resource ran out under the shard"),
    ("workloads-cost", "cause", "poor scaling", "say which phase of the step did not shrink, and why"),
])
def test_an_umbrella_word_is_too_broad_asks_back_and_is_not_counted(lab_id, field, typed, ask):
    session = on(None, lab_id, 0)
    out, status = session.execute(finding(session, **{field: typed}))
    shown = f'"{typed}"' if " " in typed else typed
    assert (out, status) == (f"submit: {field}={shown}: too broad here; {ask}\n", 2)
    assert "0 attempts" in attempts_shown(session)


@pytest.mark.parametrize("lab_id", BROAD_LABS)
def test_every_umbrella_phrase_is_refused_without_naming_a_value_on_every_cause(lab_id):
    lab = labs.get(lab_id)
    assert lab.check is not None
    for seed in range(3):
        session = on(None, lab_id, seed)
        for field, umbrellas in lab.check.broad.items():
            values = lab.check.vocabularies[field].phrases
            for umbrella in umbrellas:
                for phrase in umbrella.phrases:
                    out, status = session.execute(finding(session, **{field: phrase}))
                    assert status == 2 and "too broad here" in out, (lab_id, phrase, out)
                    assert not set(values) & set(re.findall(r"[\w-]+", out.split("too broad here")[1])), out
        assert "0 attempts" in attempts_shown(session)


def test_a_specific_phrase_beside_an_umbrella_word_is_judged():
    session = on(None, "topology", 0)
    truth = session.cluster.truth()
    said = {"cpu-misbinding": "numa misbinding of the cpus", "memory-misbinding": "numa misbinding of memory"}
    assert run(session, finding(session, cause=said[truth["cause"]])).startswith("✓ Correct")


def _workloads_cost(broad: str) -> str:
    text = dict(_lab_files())["labs/workloads-cost.toml"]
    start = text.index("[[check.broad]]")
    end = text.index("[check.wrong]")
    return text[:start] + broad + text[end:]


@pytest.mark.parametrize(("broad", "problem"), [
    ('[[check.broad]]\nphrases = ["loader"]\nspans = ["communication-bound", "input-bound"]\nask = "say which"\n',
     "check.broad[0].phrases[0]: 'loader' already names input-bound"),
    ('[[check.broad]]\nphrases = ["scaling"]\nspans = ["input-bound"]\nask = "say which"\n',
     "check.broad[0].spans: an umbrella spans two or more values"),
    ('[[check.broad]]\nphrases = ["scaling"]\nspans = ["input-bound", "spine"]\nask = "say which"\n',
     "check.broad[0].spans[1]: 'spine' is not one of the field's values"),
    ('[[check.broad]]\nphrases = ["scaling"]\nspans = ["communication-bound", "input-bound"]\n'
     'ask = "is it the data loader?"\n', "check.broad[0].ask: names input-bound: the question must not give"),
    ('[[check.broad]]\nfield = "node"\nphrases = ["scaling"]\nspans = ["a", "b"]\nask = "say which"\n',
     "check.broad[0].field: not a field with phrases"),
])
def test_the_schema_refuses_an_umbrella_that_names_a_value_or_gives_the_answer(broad, problem):
    with pytest.raises(LabError, match=r"labs/workloads-cost\.toml: check\.") as error:
        labs.load_text(_workloads_cost(broad), "labs/workloads-cost.toml")
    assert problem in str(error.value)
