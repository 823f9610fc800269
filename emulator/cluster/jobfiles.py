"""The training job's files by path: what each holds now, and when it was last written.

Every file is rendered at the simulated clock's current instant, so the
files grow as time passes (``tail -f`` shows new lines) and every number
agrees with ``timeline``, ``py-spy`` and the collective model; nothing is
stored. The texts come from :mod:`emulator.cluster.trainlog` (``train.log``),
:mod:`emulator.cluster.slurmout` (``slurm-<jobid>.out``),
:mod:`emulator.cluster.jobscript` (the batch script and config) and
:mod:`emulator.cluster.checkpoints` (the latest-checkpoint pointer).
"""

from __future__ import annotations

from collections.abc import Callable
from posixpath import dirname

from emulator.cluster.checkpoints import checkpoint_mtime, latest_checkpoint
from emulator.cluster.jobscript import config_path, config_text, job_script, script_path
from emulator.cluster.model import Cluster
from emulator.cluster.slurmout import slurm_out, slurm_out_mtime
from emulator.cluster.trainlog import previous_log, train_log, train_log_mtime


def files(cluster: Cluster) -> dict[str, Callable[[], str]]:
    """Absolute path -> producer of the file's text now."""
    run = cluster.training
    if run is None:
        return {}
    job = cluster.slurm.job(run.job_id)
    out = job.stdout if job and job.stdout else f"/lustre/jobs/{run.name}/slurm-{run.job_id}.out"
    jobdir = dirname(out)
    table: dict[str, Callable[[], str]] = {
        f"{jobdir}/train.log": lambda: train_log(cluster),
        out: lambda: slurm_out(cluster),
        config_path(run): lambda: config_text(run),
        script_path(cluster): lambda: job_script(cluster),
        f"{run.checkpoint_dir}/latest_checkpointed_iteration.txt": lambda: f"{latest_checkpoint(cluster)}\n",
    }
    if run.previous_config:
        table[f"{jobdir}/train.log.1"] = lambda: previous_log(cluster)
    before = run.previous_config.get("env")
    if isinstance(before, dict):
        # The script was edited for this job; the editor kept the previous job's copy.
        table[f"{script_path(cluster)}.orig"] = lambda: job_script(cluster, before)
    return table


def mtimes(cluster: Cluster) -> dict[str, Callable[[], float]]:
    """Absolute path -> when the file was last written (offset s), for ``ls -l``.

    A log that stopped growing keeps the instant of its last line, so a stale
    ``train.log`` shows as stale; see :func:`files` for the paths.
    """
    run = cluster.training
    paths = files(cluster)
    if run is None:
        return {}
    job = cluster.slurm.job(run.job_id)
    submitted = job.submit_s if job is not None else run.started_s
    table: dict[str, Callable[[], float]] = {}
    for path in paths:
        if path.endswith("/train.log"):
            table[path] = lambda: train_log_mtime(cluster)
        elif path.endswith(".out"):
            table[path] = lambda: slurm_out_mtime(cluster)
        elif path.endswith("latest_checkpointed_iteration.txt"):
            table[path] = lambda: checkpoint_mtime(cluster)
        elif path.endswith(".yaml"):
            table[path] = lambda: submitted - 410.0
        elif path == script_path(cluster):
            table[path] = lambda: submitted - 95.0
        elif path.endswith("/train.log.1"):
            table[path] = lambda: run.started_s - 420.0
        elif path == f"{script_path(cluster)}.orig":
            table[path] = lambda: submitted - 400.0
    return table
