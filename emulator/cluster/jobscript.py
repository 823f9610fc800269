"""The training job's inputs: the batch script that launched it and the YAML config it reads.

Both are rendered from the run's settings (:class:`emulator.cluster.training.TrainingRun`)
and its Slurm job, so the script's ``#SBATCH`` lines, exported environment
and retry loop agree with ``scontrol show job`` and the Slurm output.
"""

from __future__ import annotations

from emulator.cluster.model import Cluster
from emulator.cluster.training import TrainingRun


def attempts(run: TrainingRun) -> int:
    """Launches the batch script makes: one, or a retry loop when earlier attempts hung.

    The attempt running now is always the script's last, so when it fails the
    script exits non-zero and Slurm records the job FAILED.
    """
    return len(run.past_hangs) + 1


def script_path(cluster: Cluster) -> str:
    run = cluster.training
    job = cluster.slurm.job(run.job_id) if run else None
    return job.command if job and job.command else "/home/alice/jobs/pretrain.sbatch"


def job_script(cluster: Cluster, env: dict[str, str] | None = None) -> str:
    """The batch script that launched the run, with the environment it exports (``env`` for the
    script as it was before an edit: the copy kept as ``<script>.orig``)."""
    run = cluster.training
    if run is None:
        return ""
    job = cluster.slurm.job(run.job_id)
    out = job.stdout.replace(str(run.job_id), "%j") if job and job.stdout else "slurm-%j.out"
    tasks, cpus, gpus = (job.ntasks_per_node, job.cpus_per_task, job.gpus_per_node) if job else (8, 28, 8)
    lines = ["#!/bin/bash", f"#SBATCH --job-name={run.name}", "#SBATCH --partition=gpu",
             f"#SBATCH --nodes={len(run.nodes)}", f"#SBATCH --ntasks-per-node={tasks}"]
    lines += [f"#SBATCH --cpus-per-task={cpus}"] if cpus > 1 else []
    lines += [f"#SBATCH --gpus-per-node={gpus}", "#SBATCH --exclusive", f"#SBATCH --output={out}",
              "#SBATCH --time=2-00:00:00", ""]
    lines += [f"export {k}={v}" for k, v in (run.env if env is None else env).items()]
    if run.distribution:
        # srun starts the ranks itself, so the script names the rendezvous torchrun would have set up.
        lines += ["export MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1) MASTER_PORT=29500"]
    launch = launch_lines(run)
    lines += ["", "set -x"]
    n = attempts(run)
    if n == 1:
        lines += launch
    else:
        lines += [f"for attempt in {' '.join(str(a) for a in range(1, n + 1))}; do"]
        lines += ["    " + text for text in launch[:-1]] + ["    " + launch[-1] + " && exit 0",
                                                              f'    echo "attempt $attempt of {n} failed"',
                                                              "done", "exit 1"]
    return "\n".join(lines) + "\n"


def launch_lines(run: TrainingRun) -> list[str]:
    """The launch: one torchrun per node (ranks node-major), or one srun task per GPU under the run's
    distribution (each rank reads its rank from SLURM_PROCID, its GPU from SLURM_LOCALID)."""
    if run.distribution:
        return [f"srun --ntasks-per-node=8 --distribution={run.distribution} --kill-on-bad-exit=1 \\",
                f"    python3 -u train.py --config {config_path(run)}"]
    return ["srun --ntasks-per-node=1 --kill-on-bad-exit=1 torchrun --nnodes=$SLURM_NNODES --nproc-per-node=8 \\",
            "    --rdzv-id=$SLURM_JOB_ID --rdzv-backend=c10d \\",
            "    --rdzv-endpoint=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1):29500 \\",
            f"    train.py --config {config_path(run)}"]


def config_path(run: TrainingRun) -> str:
    return f"/home/alice/jobs/configs/{run.model_name}.yaml"


def config_text(run: TrainingRun) -> str:
    """The job's YAML config as the launcher reads it."""
    lines = [
        f"# {run.model_name} pre-training",
        "model:",
        f"  name: {run.model_name}",
        f"  params: {run.params_b}e9",
        f"  hidden_size: {run.hidden}",
        f"  num_layers: {run.layers}",
        "parallel:",
        f"  tensor: {run.tp}",
        f"  pipeline: {run.pp}",
        f"  order: {run.parallel_order}",
        "train:",
        f"  seq_len: {run.seq_len}",
        f"  micro_batch_size: {run.micro_batch}",
        f"  grad_accum_steps: {run.grad_accum}",
        f"  precision: {run.precision}",
        f"  activation_checkpointing: {str(run.activation_recompute).lower()}",
        f"  log_interval: {run.log_interval}",
        "data:",
        f"  path: {run.data_dir}",
        f"  num_workers: {run.loader_workers}",
        f"  prefetch_factor: {run.prefetch_factor}",
        f"  pin_memory: {str(run.pin_memory).lower()}",
        "checkpoint:",
        f"  dir: {run.checkpoint_dir}",
        f"  every: {run.checkpoint_every}",
        f"  async: {str(run.async_checkpoint).lower()}",
    ]
    return "\n".join(lines) + "\n"
