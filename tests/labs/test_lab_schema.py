"""Lab files validate, and each kind of schema error names the file, the field and the problem."""

from __future__ import annotations

import tomllib

import pytest

from emulator import labs
from emulator.errors import LabError

GOOD = '''
id = "demo"
title = "Demo"
difficulty = "intermediate"
pages = ["reference/fabric-triage.md"]
scenario = "A job regressed this morning: its steps are slower."
goal = "Which port?"
hints = ["Look at the ports.", "Compare the rates."]

[cluster]
nodes = 4
training_nodes = 2

[cluster.training]
loader_workers = 4

[[faults]]
name = "link-rate"
vary = { rate_gbps = [200] }

[[solution]]
title = "Read the rates"
run = ["ssh <node> ibstat"]
look_for = "A port below 400."
record = "The port."
evidence = ["Rate: 200"]

[check]
fields = ["node", "port", "cause"]
causes = { link-rate = ["rate", "speed"] }
wrong = { port = "Compare the Rate lines." }
feedback = [{ when = { cause = "link-rate" }, say = "Right cause, wrong place." }]

[[symptoms]]
kind = "step-time"
claim = "slower"
says = "its steps are slower"

[[promises]]
says = "A job regressed this morning"
when = "this morning"
run = ["head -n 1 /lustre/jobs/llm-pretrain/train.log"]
pattern = "^(?P<at>\\\\S+ \\\\S+),\\\\d+ INFO"
'''


def parse(text: str = GOOD, **changes: object) -> labs.Lab:
    data = tomllib.loads(text)
    for path, value in changes.items():
        target = data
        keys = path.split("__")
        for key in keys[:-1]:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if value is None:
            del target[keys[-1]]
        elif isinstance(target, list):
            target[int(keys[-1])] = value
        else:
            target[keys[-1]] = value
    return labs.parse_lab(data, "labs/demo.toml")


def test_every_lab_file_validates():
    assert labs.SANDBOX in labs.known_labs()
    for lab_id in labs.known_labs():
        assert labs.get(lab_id).id == lab_id


def test_the_issue_lists_fifteen_labs_plus_the_sandbox():
    required = {"input-wait", "multi-node-slowdown", "late-rank", "gpu-data-path", "nvlink", "nccl-transport",
                "topology", "storage", "fabric-triage", "out-of-band", "diagnostic-snapshot", "workloads-cost",
                "tokens-batches-steps", "parallelism-placement", "checkpointing"}
    assert required <= set(labs.known_labs())
    assert len([i for i in labs.known_labs() if not labs.get(i).is_sandbox]) >= 15


def test_a_good_lab_parses_with_its_parts():
    lab = parse()
    assert lab.faults[0].names == ["link-rate"]
    assert lab.solution[0].run == ["ssh <node> ibstat"]
    assert lab.check is not None and lab.check.causes == {"link-rate": ["rate", "speed"]}
    assert lab.submit_form() == "submit node=<node> port=<port> cause=<cause>"


@pytest.mark.parametrize(("changes", "message"), [
    ({"hints__1": 3}, "labs/demo.toml: hints[1]: expected a string"),
    ({"hints": "one"}, "labs/demo.toml: hints: expected a list of strings"),
    ({"hints": []}, "labs/demo.toml: hints: must not be empty"),
    ({"title": None}, "labs/demo.toml: title: missing"),
    ({"title": "  "}, "labs/demo.toml: title: must not be empty"),
    ({"colour": "red"}, "labs/demo.toml: colour: unknown field"),
    ({"id": "other"}, "labs/demo.toml: id: must match the file name (demo)"),
    ({"id": "Demo Lab"}, "labs/demo.toml: id: expected lowercase words joined by '-'"),
    ({"difficulty": "easy"}, "labs/demo.toml: difficulty: expected one of introductory, intermediate, advanced"),
    ({"pages__0": "/abs.md"}, "labs/demo.toml: pages[0]: expected a site path such as guides/data-loading.md"),
    ({"cluster__nodes": "8"}, "labs/demo.toml: cluster.nodes: expected an integer"),
    ({"cluster__nodes": 0}, "labs/demo.toml: cluster.nodes: must be between 1 and 1024"),
    ({"cluster__training__warp": 9}, "labs/demo.toml: cluster.training.warp: not a training setting"),
    ({"faults__0__vary__rate_gbps": []}, "labs/demo.toml: faults[0].vary.rate_gbps: expected a non-empty list of choices"),
    ({"faults__0__name": "gremlins"}, "labs/demo.toml: faults[0].name: unknown fault 'gremlins'"),
    ({"faults__0__vary": {"colour": ["red"]}}, "labs/demo.toml: faults[0].vary.colour: not a parameter of link-rate"),
    ({"faults__0__params": {"speed": 1}}, "labs/demo.toml: faults[0].params.speed: not a parameter of link-rate"),
    ({"solution": []}, "labs/demo.toml: solution: must have at least one step"),
    ({"solution__0__run__0": "ssh <host> ibstat"},
     "labs/demo.toml: solution[0].run[0]: <host> is not a field of check.fields or check.uses"),
    ({"solution__0__evidence__0": "Rate: (200"}, "labs/demo.toml: solution[0].evidence[0]: bad regular expression"),
    ({"solution__0__evidence__0": {"cause": "heat", "pattern": "x"}},
     "labs/demo.toml: solution[0].evidence[0].cause: not one of check.causes"),
    ({"solution__0__evidence__0": 7}, "labs/demo.toml: solution[0].evidence[0]: expected a string or a table"),
    ({"solution__0__record": None}, "labs/demo.toml: solution[0].record: missing"),
    ({"check__causes": {}}, "labs/demo.toml: check.causes: must list the cause words when fields has cause"),
    ({"check__synonyms": {"cause": {"x": []}}},
     "labs/demo.toml: check.synonyms.cause: not one of check.fields other than cause"),
    ({"check__wrong__gpu": "x"}, "labs/demo.toml: check.wrong.gpu: not one of check.fields"),
    ({"check__feedback__0__when": {}}, "labs/demo.toml: check.feedback[0].when: must not be empty"),
    ({"check": None}, "labs/demo.toml: check: missing"),
    ({"symptoms": []}, "labs/demo.toml: symptoms: must declare at least one symptom the brief claims"),
    ({"symptoms__0__kind": "vibes"}, "labs/demo.toml: symptoms[0].kind: expected one of step-time"),
    ({"symptoms__0__claim": "dips"}, "labs/demo.toml: symptoms[0].claim: a step-time claim is one of slower"),
    ({"symptoms__0__says": "far slower"}, "labs/demo.toml: symptoms[0].says: must be words of the scenario"),
    ({"symptoms__0__kind": "busbw"}, "labs/demo.toml: symptoms[0].run: a busbw symptom names the command lines"),
    ({"promises__0__when": "last night"}, "labs/demo.toml: promises[0].when: must be a time phrase of the scenario"),
    ({"promises__0__pattern": "(?P<at>x"}, "labs/demo.toml: promises[0].pattern: bad regular expression"),
])
def test_a_schema_error_names_file_field_and_problem(changes, message):
    with pytest.raises(LabError) as error:
        parse(**changes)
    assert str(error.value).startswith(message)


def test_a_lab_without_faults_may_not_have_a_goal_or_check():
    with pytest.raises(LabError, match="labs/demo.toml: goal: only a lab with faults has one"):
        parse(faults=[])


def test_invalid_toml_names_the_file():
    with pytest.raises(LabError, match="labs/broken.toml: not valid TOML"):
        labs.load_text("id = ", "labs/broken.toml")


def test_the_seed_picks_one_of_the_declared_choices_deterministically():
    lab = parse(faults__0__vary={"rate_gbps": [100, 200], "port": ["mlx5_0", "mlx5_3", "mlx5_5"]})
    picks = {seed: labs.fault_params(lab, seed)[0][1]["port"] for seed in range(12)}
    assert set(picks.values()) <= {"mlx5_0", "mlx5_3", "mlx5_5"}
    assert len(set(picks.values())) > 1
    assert picks == {seed: labs.fault_params(lab, seed)[0][1]["port"] for seed in range(12)}


def test_evidence_for_one_cause_holds_only_when_the_seed_picked_that_cause():
    lab = parse(solution__0__evidence=["<port>", {"cause": "link-rate", "pattern": "Rate: 200"}])
    step = lab.solution[0]
    assert step.expected({"port": "mlx5_3", "cause": "link-rate"}) == ["mlx5_3", "Rate: 200"]
    assert step.expected({"port": "mlx5_3", "cause": "symbol-errors"}) == ["mlx5_3"]


def test_synonyms_give_a_field_one_canonical_spelling():
    lab = parse(check__fields=["port", "cause"], check__wrong={}, check__uses=["node"],
                check__synonyms={"port": {"mlx5_3": ["rail3", "ibp94s0"]}})
    truth = {"port": "mlx5_3", "cause": "link-rate"}
    assert labs.judge(lab, truth, {"port": "IBP94S0", "cause": "speed"}).correct
    assert labs.judge(lab, truth, {"port": "rail4", "cause": "speed"}).wrong_fields == ["port"]


def test_evidence_may_depend_on_any_truth_field():
    lab = parse(solution__0__evidence=[{"when": {"port": "mlx5_3"}, "pattern": "three"}])
    assert lab.solution[0].expected({"port": "mlx5_3"}) == ["three"]
    assert lab.solution[0].expected({"port": "mlx5_4"}) == []


@pytest.mark.parametrize("gpu", ["3", "GPU3", "0000:61:00.0", "00000000:61:00.0", "61:00.0", "GPU-66f9a281"])
def test_a_gpu_may_be_named_by_index_bus_id_or_uuid(gpu):
    lab = parse(check__fields=["node", "gpu"], check__wrong={}, check__causes={}, check__feedback=[],
                solution__0__run=["ibstat"], solution__0__evidence=[])
    truth = {"node": "node03", "gpu": "3", "bus_id": "00000000:61:00.0", "uuid": "gpu-66f9a281"}
    assert labs.judge(lab, truth, {"node": "node3", "gpu": gpu}).correct


def test_one_gpus_bus_id_does_not_answer_for_all_gpus_of_a_node():
    lab = parse(check__fields=["node", "gpu"], check__wrong={}, check__causes={}, check__feedback=[],
                solution__0__run=["ibstat"], solution__0__evidence=[])
    truth = {"node": "node03", "gpu": "all", "bus_id": "00000000:1B:00.0"}
    assert not labs.judge(lab, truth, {"node": "node03", "gpu": "1b:00.0"}).correct
    assert labs.judge(lab, truth, {"node": "node03", "gpu": "ALL"}).correct


def test_a_port_may_be_named_by_netdev_guid_or_lid():
    lab = parse()
    truth = {"node": "node03", "port": "mlx5_3", "netdev": "ibp94s0", "guid": "0xa088c2030063b2a1", "lid": "111",
             "cause": "link-rate"}
    for port in ("mlx5_3", "mlx5_3/1", "ibp94s0", "0xA088C2030063B2A1", "111", "0x6f"):
        assert labs.judge(lab, truth, {"node": "node03", "port": port, "cause": "speed"}).correct, port
    assert not labs.judge(lab, truth, {"node": "node03", "port": "112", "cause": "speed"}).correct


def test_an_unknown_lab_id_is_a_lab_error():
    with pytest.raises(LabError, match="unknown lab: nope"):
        labs.cluster_for("nope", 0)


def test_the_sandbox_is_the_healthy_cluster_with_no_lab():
    cluster = labs.cluster_for(None, 3)
    assert cluster.faults == [] and cluster.seed == 3


@pytest.mark.parametrize(("causes", "message"), [
    ({"link-rate": ["rate"], "link-flap": ["rate"]},
     "labs/demo.toml: check.causes.link-rate[0]: 'rate' also names link-flap"),
    ({"link-rate": ["link speed"], "symbol-errors": ["speed of the link"]},
     "labs/demo.toml: check.causes.link-rate[0]: 'link speed' also names symbol-errors"),
    ({"link-rate": ["link rate"], "link-flap": ["linkrate"]},
     "labs/demo.toml: check.causes.link-rate[0]: 'link rate' also names link-flap"),
    ({"link-rate": ["the"]}, "labs/demo.toml: check.causes.link-rate[0]: 'the' has no meaningful word"),
])
def test_a_phrase_that_names_two_causes_is_a_schema_error(causes, message):
    with pytest.raises(LabError) as error:
        parse(check__causes=causes)
    assert str(error.value) == message


@pytest.mark.parametrize(("wrong", "message"), [
    ({"port": "The node is right; read its eight ports."},
     "labs/demo.toml: check.wrong.port: says the node is right: list it in needs (and say what holds otherwise)"),
    ({"port": {"say": "The node is right; read its ports.", "needs": ["port"]}},
     "labs/demo.toml: check.wrong.port.needs[0]: not another of check.fields"),
    ({"port": {"say": "Read the ports.", "colour": "red"}}, "labs/demo.toml: check.wrong.port.colour: unknown field"),
])
def test_advice_that_takes_another_part_as_right_must_say_so(wrong, message):
    with pytest.raises(LabError) as error:
        parse(check__wrong=wrong)
    assert str(error.value) == message


def test_advice_with_needs_gives_its_otherwise_when_a_needed_part_is_wrong():
    lab = parse(check__wrong={"port": {"say": "The node is right; read its ports.", "needs": ["node"],
                                       "otherwise": "Find the node first."}})
    truth = {"node": "node03", "port": "mlx5_3", "cause": "link-rate"}
    right_node = labs.judge(lab, truth, {"node": "node03", "port": "mlx5_4", "cause": "rate"})
    wrong_node = labs.judge(lab, truth, {"node": "node04", "port": "mlx5_4", "cause": "rate"})
    assert right_node.advice == {"port": "The node is right; read its ports."}
    assert wrong_node.advice == {"port": "Find the node first."}
