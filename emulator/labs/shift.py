"""An on-call shift: several incidents drawn by seed from the labs' faults, and a red herring, on one cluster.

A shift is built from the labs whose findings name a node and whose faults
touch one node only, so that they apply independently (:data:`KINDS`): a
degraded InfiniBand port (``multi-node-slowdown``), a slow GPU
(``gpu-data-path``), a broken NVLink fabric (``nvlink``) and a host that went
down (``out-of-band``). The seed picks :data:`INCIDENTS` of these kinds, each
one's fault and parameters among those its lab can pick, and one of the decoys
those labs declare as the red herring. The decoy is placed first, on one of
the job's nodes; the incidents take other nodes, never two on one node (a host
that is down, or a broken NVLink fabric, takes a node outside the job, as the
job could not run there, see :data:`OFF_JOB`).

Each finding is judged by the judge of the incident's lab
(:func:`emulator.labs.findings.judge`) against that incident's truth: the one
open incident on the finding's node. A finding on a node with no open incident
(the red herring's lure among them) is a wrong finding.

Cost follows the cost page (docs/guides/cost.md, "Completion cost"): GPU-hours
are allocated nodes × GPUs per node × elapsed time, whatever the GPUs did. An
open incident holds its node's GPUs out of useful work, so it loses that
node's GPU count × the simulated hours from the start of the shift until its
finding. Nothing here reads a wall clock: times are the cluster's simulated
clock, which advances with each command and with ``sleep``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from emulator.cluster.build import ClusterSpec, build_cluster
from emulator.cluster.faults import apply_fault, catalog
from emulator.cluster.ids import rng
from emulator.cluster.model import Cluster
from emulator.labs.decoys import DECOYS
from emulator.labs.findings import Verdict, canonical_cause, judge, normalise
from emulator.labs.loader import get
from emulator.labs.progress import Progress
from emulator.labs.schema import Lab

#: The id a shift goes by in progress, completion codes and ``verify``.
SHIFT = "shift"
#: The labs a shift draws its incidents from (their faults touch one node, their findings name it).
KINDS = ("multi-node-slowdown", "gpu-data-path", "nvlink", "out-of-band")
#: The kinds placed on a node outside the job: the job could not run on a host that is down, and a node
#: whose NVLink fabric is broken fails the job, which would hide the other incidents' evidence.
OFF_JOB = ("nvlink", "out-of-band")
#: Incidents in one shift.
INCIDENTS = 3
#: The fields a shift finding may give; each incident's lab asks for some of them.
FIELDS = ("node", "port", "gpu", "cause")
#: What each kind's ticket says: symptoms only, never the cause.
TICKETS = {
    "multi-node-slowdown": "the network team's all-reduce sweep over the nodes of job {job} ({name}) reads below "
                           "its baseline and flagged {node}",
    "gpu-data-path": "the owner of job {job} ({name}) reports that {node} looks slower than its peers",
    "nvlink": "a user reports that single-node NCCL tests on {node} are off since its last maintenance",
    "out-of-band": "{node} stopped answering; Slurm marks it not responding",
}
#: What each decoy's alert says (a real reading, benign on inspection).
HERRINGS = {
    "stale-counters": "{node} {port}: SymbolErrorCounter and PortRcvErrors are non-zero",
    "warm-gpu": "{node} GPU {gpu} runs warmer than the other GPUs of the node",
}


@dataclass
class Incident:
    """One incident of a shift: its lab, node, truth, and when (simulated seconds) a finding resolved it."""

    lab: str
    node: str
    truth: dict[str, str]
    gpus: int
    resolved_at: float | None = None
    #: Hints shown for this incident (``oncall hint``).
    hints: int = 0

    def lost_gpu_hours(self, start: float, now: float) -> float:
        """GPUs of the node × hours open (docs/guides/cost.md, "Completion cost")."""
        end = now if self.resolved_at is None else self.resolved_at
        return self.gpus * max(0.0, end - start) / 3600


@dataclass
class ShiftRun(Progress):
    """A shift's progress: its incidents, red herring, start time, wrong findings (``attempts`` counts all)."""

    incidents: list[Incident] = field(default_factory=list)
    herring: dict[str, str] = field(default_factory=dict)
    alerts: list[str] = field(default_factory=list)
    started: float = 0.0
    wrong: int = 0
    ended: bool = False
    #: The simulated time the shift ended (``oncall end``).
    ended_at: float = 0.0
    #: The cluster the shift runs on (the session's while the shift is the current one).
    cluster: Any = None

    def open(self) -> list[Incident]:
        return [i for i in self.incidents if i.resolved_at is None]

    def lost(self, now: float) -> float:
        return sum(i.lost_gpu_hours(self.started, now) for i in self.incidents)

    def move_to(self, cluster: Cluster) -> None:
        """Go on with this shift on ``cluster`` (rebuilt for it): its times move to that cluster's clock, so
        the time on shift goes on from where it stopped."""
        delta = cluster.clock.elapsed - (self.ended_at if self.ended else self.cluster.clock.elapsed)
        self.started += delta
        self.ended_at += delta if self.ended else 0.0
        for incident in self.incidents:
            if incident.resolved_at is not None:
                incident.resolved_at += delta
        self.cluster = cluster


def _variant(lab: Lab, r: Any) -> tuple[str, dict[str, Any]]:
    """One of the lab's faults with its parameters, as the lab could pick it."""
    spec = lab.faults[0]
    name = spec.names[r.randrange(len(spec.names))]
    params = dict(spec.params)
    for key, options in spec.vary.items():
        params[key] = options[r.randrange(len(options))]
    return name, {k: v for k, v in params.items() if k in catalog()[name].params}


def build_shift(seed: int) -> ShiftRun:
    """The shift of ``seed``: its cluster with the red herring and the incidents applied."""
    r = rng(seed, "shift")
    cluster = build_cluster(ClusterSpec(seed=seed))
    kinds = r.sample(KINDS, INCIDENTS)
    # storage-port changes nothing on the cluster: it is a lure of the labs' sweeps, not an alert.
    decoys = sorted({d for kind in kinds for d in get(kind).decoys if d in HERRINGS})
    decoy = decoys[r.randrange(len(decoys))]        # any three kinds include one with a decoy
    herring = DECOYS[decoy](cluster, {}, SHIFT)
    assert cluster.training is not None
    job = list(cluster.training.nodes)
    busy = [n for n in job if n != herring["node"]]
    idle = [n.name for n in cluster.compute_nodes if n.name not in job]
    r.shuffle(busy)
    r.shuffle(idle)
    incidents, alerts = [], []
    for kind in kinds:
        lab = get(kind)
        name, params = _variant(lab, r)
        node = idle.pop() if kind in OFF_JOB else busy.pop()
        truth = apply_fault(cluster, name, {**params, "node": node}).truth
        host = cluster.node(node)
        incidents.append(Incident(kind, node, truth, len(host.gpus) if host is not None else 8))
        alerts.append(TICKETS[kind].format(job=cluster.training.job_id, name=cluster.training.name, node=node))
    alerts.append(HERRINGS[decoy].format(**{"port": "", "gpu": "", **herring}))
    order = list(range(len(alerts)))
    r.shuffle(order)
    return ShiftRun(SHIFT, seed, incidents=incidents, herring=herring, alerts=[alerts[i] for i in order],
                    started=cluster.clock.elapsed, cluster=cluster)


def running(session: Any) -> ShiftRun | None:
    """The shift a session (:class:`emulator.session.Session`) is on: the last one it started, while its
    cluster is the session's (``lab start`` leaves it)."""
    run = session.lab_runs.get((SHIFT, session.seed))
    return run if isinstance(run, ShiftRun) and run.cluster is session.cluster else None


def reads_cause(text: str) -> bool:
    """Whether any shift lab's cause phrases read ``text`` as one cause."""
    return any(canonical_cause(check, text) is not None
               for check in (get(kind).check for kind in KINDS) if check is not None)


def incident_at(run: ShiftRun, node: str) -> Incident | None:
    """The incident on ``node`` (any spelling of it), resolved or not."""
    want = normalise("node", node)
    return next((i for i in run.incidents if normalise("node", i.node) == want), None)


def judge_finding(incident: Incident, finding: dict[str, str]) -> Verdict:
    """The finding judged by the incident's lab, on the fields that lab asks for."""
    lab = get(incident.lab)
    assert lab.check is not None
    return judge(lab, incident.truth, {k: finding.get(k, "") for k in lab.check.fields})


def fields_of(incident: Incident) -> list[str]:
    check = get(incident.lab).check
    return list(check.fields) if check is not None else ["node", "cause"]
