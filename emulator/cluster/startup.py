"""A training run that cannot start: a fault present at launch fails CUDA or NCCL on one of its nodes.

:func:`fail_at_start` asks the collective model whether the run's ranks
could initialise: :func:`emulator.cluster.collectives.check_usable` (CUDA
starts at all: a stopped Fabric Manager leaves ``cudaErrorSystemNotReady``),
then :func:`emulator.cluster.collectives.check_p2p` with the job's
environment (NCCL's topology check refuses a GPU Fabric Manager left out of
NVSwitch routing). When they could not, that node's ranks raised during
initialisation, torchrun there reported the failure, ``srun
--kill-on-bad-exit=1`` killed the other tasks, and the batch script (one
attempt, no ``--requeue``, ``JobRequeue=0``) exited 1: slurmctld records
FAILED, ``NonZeroExitCode``, exit code ``1:0``. The logs render it from
:class:`emulator.cluster.training.StartFailure`
(:mod:`emulator.cluster.slurmout`, :mod:`emulator.cluster.trainlog`).
"""

from __future__ import annotations

from emulator.cluster.collectives import CollectiveError, NcclInitError, check_p2p, check_usable
from emulator.cluster.lifecycle import end_job
from emulator.cluster.model import Cluster
from emulator.cluster.timeline import schedule
from emulator.cluster.training import StartFailure

#: Seconds after the processes start when each rank's first CUDA call (``torch.cuda.set_device``) runs.
CUDA_INIT_S = 3.2
#: Seconds after the processes start when the first collective (DDP's parameter check, after the
#: process group is ready) creates the NCCL communicator.
NCCL_INIT_S = 31.0
#: Seconds from the ranks' error until Slurm has ended the job: torchrun's monitor sees the exit,
#: srun kills the other tasks (``--kill-on-bad-exit=1``), the batch script exits.
KILL_S = 1.6
def fail_at_start(cluster: Cluster) -> None:
    """Record that the run could not initialise, and end its job, when the model says so now.

    Faults whose condition held before the job launched (a Fabric Manager that failed, an
    NVLink that never trained) call this after changing the model.
    """
    run = cluster.training
    if run is None or run.start_failure is not None:
        return
    job = cluster.slurm.job(run.job_id)
    if job is None or job.state != "RUNNING":
        return
    ranks = [(r.node, r.gpu) for r in run.ranks]
    sched = schedule(cluster)
    try:
        check_usable(cluster, ranks)
        check_p2p(cluster, ranks, run.env)
        return
    except NcclInitError as exc:
        failure = StartFailure(exc.node, "nccl", exc.cuda_error, exc.warning, sched.init_s + NCCL_INIT_S,
                               sched.init_s + NCCL_INIT_S + KILL_S)
    except CollectiveError as exc:
        failure = StartFailure(exc.node, "cuda", exc.cuda_error, "", sched.init_s + CUDA_INIT_S,
                               sched.init_s + CUDA_INIT_S + KILL_S)
    run.start_failure = failure
    end_job(cluster, job, "FAILED", failure.end_s, "1:0", "NonZeroExitCode")
