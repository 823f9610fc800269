"""What a rank's failed checkpoint write raised, as PyTorch DCP reports it to every rank.

``torch.distributed.checkpoint.save`` runs each rank's write inside the
coordinator's ``all_reduce``: a rank whose write raises sends its exception
and stack to the coordinator, which skips ``finish`` (so writes no
``.metadata``) and broadcasts a ``CheckpointException``; every rank raises it
(torch/distributed/checkpoint/utils.py, api.py). Its text is
``CheckpointException ranks:dict_keys([R])`` and, per failed rank,
``Traceback (most recent call last): (RANK R)``, the frames and the exception.

The write fails in one of three ways (``TrainingRun.checkpoint_why``): the
OST under the shard filled up (ENOSPC at the ``fsync`` DCP does before
closing each file), the project's quota ran out (EDQUOT there), or the
rank's GPU had no room for a tensor the save made on it
(``torch.OutOfMemoryError``: the job's save planner returns a non-contiguous
weight view made ``contiguous()``, a new GPU tensor, before DCP copies it to
pinned host memory; the host copy itself allocates nothing on the GPU).
:func:`oom_memory` keeps the figures so that ``nvidia-smi`` on the rank's
node shows the same process filling its GPU; a CUDA OOM is the allocator's
error, not the driver's, so ``dmesg`` logs no Xid for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from emulator.cluster.catalog import H100
from emulator.cluster.ids import rng
from emulator.cluster.training import TrainingRun

_TORCH = "/usr/local/lib/python3.10/dist-packages/torch"
_DCP = f"{_TORCH}/distributed/checkpoint"
#: The frames every failed write shares, from where the coordinator's all_reduce caught it (torch 2.4).
_WRITE_FRAMES = ((f"{_DCP}/utils.py", 212, "all_reduce", "local_data = map_fun()"),
                 (f"{_DCP}/logger.py", 66, "wrapper", "result = func(*args, **kwargs)"),
                 (f"{_DCP}/state_dict_saver.py", 310, "write_data",
                  "all_writes = storage_writer.write_data(final_local_plan, planner)"),
                 (f"{_DCP}/filesystem.py", 479, "write_data", "_write_files_from_queue("))
_FSYNC = ((f"{_DCP}/filesystem.py", 295, "_write_files_from_queue", "os.fsync(stream.fileno())"),)
#: An OOM while staging: DCP's loader asks the planner for each tensor before copying it to the host; the
#: job's planner (its checkpoint.py, in the job's working directory) returns the fused QKV weight's
#: transposed view made contiguous, a new tensor the CUDA caching allocator must find room for on the GPU.
_STAGE = ((f"{_DCP}/filesystem.py", 272, "_write_files_from_queue", "loader.start_loading()"),
          (f"{_DCP}/filesystem.py", 168, "start_loading", "self._refill()"),
          (f"{_DCP}/filesystem.py", 141, "_refill", "tensor = self.resolve_fun(obj).detach()"),
          ("/home/alice/jobs/checkpoint.py", 58, "resolve_data", "return tensor.contiguous()"))
#: The OSError each filesystem cause raised.
OS_ERRORS = {"ost-full": "OSError: [Errno 28] No space left on device",
             "quota": "OSError: [Errno 122] Disk quota exceeded"}
#: What CUDA gives the process: the board's memory less what the driver reserves (MiB).
USABLE_MIB = H100.memory_mib - H100.reserved_mib


@dataclass(frozen=True)
class OomMemory:
    """The failed rank's GPU memory when its allocation failed, MiB."""

    tried_mib: int
    used_mib: int       # what the process holds (nvidia-smi shows it still)
    reserved_free_mib: int
    context_mib: int

    @property
    def free_mib(self) -> int:
        return USABLE_MIB - self.used_mib


def oom_memory(seed: int, run: TrainingRun) -> OomMemory:
    """The figures of the failed rank's ``torch.OutOfMemoryError`` (and of its process in ``nvidia-smi``)."""
    r = rng(seed, "ckpt-oom", run.job_id)
    free = r.randint(610, 1_480)
    return OomMemory(tried_mib=r.choice((2_004, 2_048, 3_008, 4_008)), used_mib=USABLE_MIB - free,
                     reserved_free_mib=r.randint(700, 2_300), context_mib=r.randint(520, 560))


def _size(mib: int) -> str:
    """The caching allocator's ``format_size``: MiB below one GiB, else GiB, two decimals."""
    return f"{mib:.2f} MiB" if mib < 1024 else f"{mib / 1024:.2f} GiB"


def _oom_text(seed: int, run: TrainingRun, rank: int) -> str:
    mem = oom_memory(seed, run)
    allocated = mem.used_mib - mem.context_mib - mem.reserved_free_mib
    return (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {_size(mem.tried_mib)}. GPU "
            f"{run.ranks[rank].gpu} has a total capacity of {_size(USABLE_MIB)} of which {_size(mem.free_mib)} is "
            f"free. Including non-PyTorch memory, this process has {_size(mem.used_mib)} memory in use. Of the "
            f"allocated memory {_size(allocated)} is allocated by PyTorch, and {_size(mem.reserved_free_mib)} is "
            f"reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
            f"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
            f"Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")


def checkpoint_exception(seed: int, run: TrainingRun, rank: int) -> str:
    """``str(CheckpointException)`` for a save whose only failure was ``rank``'s write."""
    why = run.checkpoint_why
    frames = _WRITE_FRAMES + (_STAGE if why == "oom" else _FSYNC)
    raised = _oom_text(seed, run, rank) if why == "oom" else OS_ERRORS[why]
    lines = [f"CheckpointException ranks:dict_keys([{rank}])", f"Traceback (most recent call last): (RANK {rank})"]
    for path, line, func, code in frames:
        lines += [f'  File "{path}", line {line}, in {func}', f"    {code}"]
    return "\n".join([*lines, raised])
