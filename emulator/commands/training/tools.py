"""Looking inside the training job: ``py-spy dump`` and the emulator's ``timeline``.

``py-spy dump --pid PID`` prints the Python stacks of a rank (or of one of
its data loader workers) on the node that hosts the pid, at the simulated
instant: in the gradient all-reduce, waiting for the data loader, in a
checkpoint write, or computing, as :func:`emulator.cluster.activity.where`
says. ``timeline`` is not a real tool: it draws the run's phases and the
per-rank step breakdown from the same step model.
"""

from __future__ import annotations

import argparse

from emulator.cluster import activity, steps, timeline
from emulator.cluster.jobscript import config_path
from emulator.cluster.scheduler import compress_hostlist
from emulator.cluster.slurmout import agent_pids
from emulator.cluster.training import Rank, TrainingRun
from emulator.commands.kit.command import Command, Context, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser

MAIN = [("main", "train.py", 331), ("<module>", "train.py", 335)]
TRAIN = [("train", "train.py", 209)] + MAIN
C10D_ALLREDUCE = [("all_reduce", "torch/distributed/distributed_c10d.py", 2288),
                  ("wrapper", "torch/distributed/c10d_logger.py", 79),
                  ("allreduce_gradients", "dist.py", 61), ("train_step", "train.py", 176)] + TRAIN
LOADER_NEXT = [("_try_get_data", "torch/utils/data/dataloader.py", 1133),
               ("_get_data", "torch/utils/data/dataloader.py", 1294),
               ("_next_data", "torch/utils/data/dataloader.py", 1329),
               ("__next__", "torch/utils/data/dataloader.py", 630),
               ("train_step", "train.py", 168)] + TRAIN
#: With pin_memory, the main thread reads the pin-memory thread's queue.Queue; without it, the workers'
#: multiprocessing queue directly (dataloader.py _init_pin_memory_thread swaps _data_queue only when
#: pinning). Frames and lines as Python 3.10 shows a Queue.get(timeout=...) waiting in poll().
LOADER_WAIT = [("wait", "threading.py", 324), ("get", "queue.py", 180)] + LOADER_NEXT
LOADER_WAIT_UNPINNED = [("select", "selectors.py", 416), ("wait", "multiprocessing/connection.py", 931),
                        ("_poll", "multiprocessing/connection.py", 424),
                        ("poll", "multiprocessing/connection.py", 257),
                        ("get", "multiprocessing/queues.py", 113)] + LOADER_NEXT
FORWARD = [("forward", "model.py", 88), ("_call_impl", "torch/nn/modules/module.py", 1562),
           ("_wrapped_call_impl", "torch/nn/modules/module.py", 1553), ("forward", "model.py", 141),
           ("_call_impl", "torch/nn/modules/module.py", 1562),
           ("_wrapped_call_impl", "torch/nn/modules/module.py", 1553), ("train_step", "train.py", 170)] + TRAIN
BACKWARD = [("_engine_run_backward", "torch/autograd/graph.py", 769), ("backward", "torch/autograd/__init__.py", 289),
            ("backward", "torch/_tensor.py", 521), ("train_step", "train.py", 172)] + TRAIN
SAVE = [("_save", "torch/serialization.py", 864), ("save", "torch/serialization.py", 628),
        ("save_shard", "checkpoint.py", 71), ("save_checkpoint", "checkpoint.py", 92), ("train", "train.py", 221)] + MAIN
INIT = [("_new_process_group_helper", "torch/distributed/distributed_c10d.py", 1720),
        ("init_process_group", "torch/distributed/distributed_c10d.py", 1446),
        ("wrapper", "torch/distributed/c10d_logger.py", 79), ("setup", "dist.py", 24), ("main", "train.py", 318),
        ("<module>", "train.py", 335)]
PIN_THREAD = [("wait", "threading.py", 324), ("get", "queue.py", 180),
              ("do_one_step", "torch/utils/data/_utils/pin_memory.py", 31),
              ("_pin_memory_loop", "torch/utils/data/_utils/pin_memory.py", 54), ("run", "threading.py", 953),
              ("_bootstrap_inner", "threading.py", 1016), ("_bootstrap", "threading.py", 973)]
WRITER_THREAD = [("_save", "torch/serialization.py", 864), ("save", "torch/serialization.py", 628),
                 ("_write_shard", "checkpoint.py", 133), ("run", "threading.py", 953),
                 ("_bootstrap_inner", "threading.py", 1016), ("_bootstrap", "threading.py", 973)]
AGENT = [("_invoke_run", "torch/distributed/elastic/agent/server/api.py", 835),
         ("wrapper", "torch/distributed/elastic/metrics/api.py", 124),
         ("run", "torch/distributed/elastic/agent/server/api.py", 680),
         ("launch_agent", "torch/distributed/launcher/api.py", 255),
         ("__call__", "torch/distributed/launcher/api.py", 133), ("run", "torch/distributed/run.py", 892),
         ("main", "torch/distributed/run.py", 901),
         ("wrapper", "torch/distributed/elastic/multiprocessing/errors/__init__.py", 348), ("<module>", "torchrun", 8)]
WORKER_BASE = [("fetch", "torch/utils/data/_utils/fetch.py", 52),
               ("_worker_loop", "torch/utils/data/_utils/worker.py", 308),
               ("run", "multiprocessing/process.py", 108), ("_bootstrap", "multiprocessing/process.py", 314),
               ("_launch", "multiprocessing/popen_fork.py", 71), ("__init__", "multiprocessing/popen_fork.py", 19)]
WORKER_READ = [("_read_chunk", "data.py", 57), ("__getitem__", "data.py", 118)] + WORKER_BASE
WORKER_CPU = [("pack_sequences", "data.py", 88), ("__getitem__", "data.py", 121)] + WORKER_BASE
WORKER_IDLE = [("_recv_bytes", "multiprocessing/connection.py", 379), ("recv", "multiprocessing/connection.py", 250),
               ("get", "multiprocessing/queues.py", 103),
               ("_worker_loop", "torch/utils/data/_utils/worker.py", 275),
               ("run", "multiprocessing/process.py", 108), ("_bootstrap", "multiprocessing/process.py", 314),
               ("_launch", "multiprocessing/popen_fork.py", 71), ("__init__", "multiprocessing/popen_fork.py", 19)]

Frames = list[tuple[str, str, int]]


def _stack(frames: Frames) -> list[str]:
    return [f"    {fn} ({path}:{line})" for fn, path, line in frames]


class PySpy(ParsedCommand):
    name = "py-spy"
    directory = "/usr/local/bin"
    summary = "Sample a running Python program: dump the stacks of a process (py-spy 0.3.14)"
    section = "Training"
    usage_status = 2
    notes = "Only the dump subcommand is emulated; the pid must run on the current host (ssh to its node)."

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("sub", nargs="?", metavar="SUBCOMMAND", help="dump (record and top are not emulated)")
        parser.add_argument("-p", "--pid", metavar="PID", help="PID of a running python program")
        parser.add_argument("-l", "--locals", action="store_true", help="show local variables for each frame")
        parser.add_argument("-n", "--native", action="store_true", help="collect stack traces from native extensions")
        parser.add_argument("-s", "--subprocesses", action="store_true", help="dump subprocesses too")

    def usage_error(self, message: str) -> str:
        if "--pid" in message and "required" in message:
            return ("error: The following required arguments were not provided:\n    --pid <pid>\n\n"
                    "USAGE:\n    py-spy dump --pid <pid>\n\nFor more information try --help")
        return f"error: {message}\n\nUSAGE:\n    py-spy <SUBCOMMAND>\n\nFor more information try --help"

    def execute(self, ctx: Context, args: argparse.Namespace) -> int:
        if args.sub is None:
            raise ctx.fail("error: 'py-spy' requires a subcommand but one was not provided\n\nUSAGE:\n    "
                           "py-spy <SUBCOMMAND>\n\nFor more information try --help", 2)
        if args.sub in ("record", "top"):
            raise ctx.fail(f"py-spy: '{args.sub}' is not emulated here; use py-spy dump --pid PID", 2)
        if args.sub != "dump":
            raise ctx.fail(f"error: The subcommand '{args.sub}' wasn't recognized\n\nUSAGE:\n    "
                           "py-spy <SUBCOMMAND>\n\nFor more information try --help", 2)
        if args.pid is None:
            raise ctx.fail(self.usage_error("the following arguments are required: --pid"), 2)
        pid = int(args.pid) if str(args.pid).isdecimal() else -1
        if self._agent(ctx, pid):
            return 0
        found = self._find(ctx, pid)
        if found is None:
            raise ctx.fail("Error: Failed to open process - check if it is running.\n"
                           "Reason: No such file or directory (os error 2)", 1)
        run, rank, worker = found
        ctx.outln(f"Process {pid}: /usr/bin/python3 -u train.py --config {config_path(run)}")
        ctx.outln(f"Python v{ctx.cluster.versions.python} (/usr/bin/python3.10)")
        ctx.outln("")
        if worker is not None:
            self._worker(ctx, run, pid)
            return 0
        where = activity.where(ctx.cluster, rank)
        ctx.outln(f"Thread {pid} ({'idle' if where in ('data', 'hung-io') else 'active'}): \"MainThread\"")
        loader = LOADER_WAIT if run.pin_memory else LOADER_WAIT_UNPINNED
        stack = {"collective": C10D_ALLREDUCE, "data": loader, "hung-io": loader, "checkpoint": SAVE,
                 "init": INIT, "hung-gpu": [("train_step", "train.py", 178)] + TRAIN}.get(where)
        if stack is None:
            prof = steps.profile(ctx.cluster)
            mine = next(r for r in prof.ranks if r.rank == rank.rank)
            sched = timeline.schedule(ctx.cluster, prof)
            into = sched.into_step(ctx.clock.elapsed) - mine.data_s
            stack = FORWARD if into < mine.compute_s / 3.0 else BACKWARD
        for line in _stack(stack):
            ctx.outln(line)
        if run.pin_memory:   # the DataLoader starts its pin-memory thread only when it pins
            ctx.outln(f"Thread {pid + steps.PIN_MEMORY_THREAD} (idle): \"Thread-2 (_pin_memory_loop)\"")
            for line in _stack(PIN_THREAD):
                ctx.outln(line)
        sched = timeline.schedule(ctx.cluster)
        if run.async_checkpoint and sched.saving_at(ctx.clock.elapsed) is not None:
            ctx.outln(f"Thread {pid + steps.CHECKPOINT_WRITER_THREAD} (active): \"checkpoint-writer\"")
            for line in _stack(WRITER_THREAD):
                ctx.outln(line)
        return 0

    def _agent(self, ctx: Context, pid: int) -> bool:
        """Dump torchrun's elastic agent when ``pid`` is the one on this host; False otherwise."""
        run = ctx.cluster.training
        if run is None or agent_pids(run).get(ctx.host.name) != pid or not self._alive(ctx):
            return False
        master = run.nodes[0]
        ctx.outln(f"Process {pid}: /usr/bin/python3 /usr/local/bin/torchrun --nnodes={len(run.nodes)} "
                  f"--nproc-per-node=8 --rdzv-id={run.job_id} --rdzv-backend=c10d --rdzv-endpoint={master}:29500 "
                  f"train.py --config {config_path(run)}")
        ctx.outln(f"Python v{ctx.cluster.versions.python} (/usr/bin/python3.10)")
        ctx.outln("")
        ctx.outln(f"Thread {pid} (idle): \"MainThread\"")
        for line in _stack(AGENT):
            ctx.outln(line)
        return True

    def _alive(self, ctx: Context) -> bool:
        """Whether the training processes exist now (launched, and not torn down)."""
        dead = timeline.failed_at(ctx.cluster)
        sched = timeline.schedule(ctx.cluster)
        return not ((dead is not None and ctx.clock.elapsed >= dead) or ctx.clock.elapsed < sched.started_s)

    def _find(self, ctx: Context, pid: int) -> tuple[TrainingRun, Rank, int | None] | None:
        """The rank (and worker index) owning ``pid`` on the current host, if the job is alive."""
        run = ctx.cluster.training
        if run is None or pid <= 0:
            return None
        if not self._alive(ctx) or ctx.clock.elapsed < timeline.schedule(ctx.cluster).init_s:
            return None
        for rank in run.ranks:
            if rank.node != ctx.host.name:
                continue
            if rank.pid == pid:
                return run, rank, None
            workers = steps.worker_pids(run, rank)
            if pid in workers:
                return run, rank, workers.index(pid)
        return None

    def _worker(self, ctx: Context, run: TrainingRun, pid: int) -> None:
        cluster = ctx.cluster
        busy = steps.loader_busy(cluster)
        hung = run.hang_s is not None and ctx.clock.elapsed >= run.hang_s and run.hang_in == "io"
        owner = self._find(ctx, pid)
        if hung and owner is not None and owner[1].rank == run.hang_rank:
            state, frames = "idle", WORKER_READ
        elif busy < 0.9:
            state, frames = "idle", WORKER_IDLE
        else:
            reading = steps.loader_io_s(cluster, run) > run.batch_cpu_s
            state, frames = ("idle", WORKER_READ) if reading else ("active", WORKER_CPU)
        ctx.outln(f"Thread {pid} ({state}): \"MainThread\"")
        for line in _stack(frames):
            ctx.outln(line)


class Timeline(ParsedCommand):
    name = "timeline"
    summary = "Chart the training run's phases and per-rank step times (an emulator tool, not a real one)"
    section = "Training"
    notes = ("This command exists only in the emulator. It draws what a profiler trace or a log analysis "
             "would show: allocation, initialisation, first batch, steady state, stretches a benchmark shared "
             "the job's GPUs, checkpoint saves, hangs and recovery; --ranks shows where each rank spends its "
             "step.")
    WIDTH = 64

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("-j", "--job", metavar="ID", help="job id (default: the running training job)")
        parser.add_argument("-r", "--ranks", action="store_true", help="per-rank step breakdown")

    def execute(self, ctx: Context, args: argparse.Namespace) -> int:
        cluster = ctx.cluster
        run = cluster.training
        if args.job is not None:
            if not str(args.job).isdecimal():
                raise ctx.fail(f"timeline: invalid job id: {args.job}", 1)
            job = cluster.slurm.job(int(args.job))
            if job is None:
                raise ctx.fail(f"timeline: job {args.job} not found", 1)
            if run is None or job.job_id != run.job_id:
                raise ctx.fail(f"timeline: job {args.job} ({job.name}) has no training run to chart", 1)
        if run is None:
            raise ctx.fail("timeline: no training job in this cluster", 1)
        prof = steps.profile(cluster)
        if args.ranks:
            self._ranks(ctx, run, prof)
        else:
            self._phases(ctx, run, prof)
        return 0

    def _hm(self, ctx: Context, offset: float) -> str:
        return ctx.clock.at(offset).strftime("%H:%M:%S")

    @staticmethod
    def _dur(seconds: float) -> str:
        seconds = max(0.0, seconds)
        if seconds < 60:
            return f"{seconds:.1f}s"
        m, s = divmod(int(round(seconds)), 60)
        h, m = divmod(m, 60)
        return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s"

    def _phases(self, ctx: Context, run: TrainingRun, prof: steps.StepProfile) -> None:
        cluster = ctx.cluster
        now = ctx.clock.elapsed
        phases = activity.phases(cluster)
        sched = timeline.schedule(cluster, prof)
        start = phases[0].start_s
        # A job that ended draws its span to its end, not to the clock's now.
        end = phases[-1].end_s if run.start_failure is not None else now
        span = max(1.0, end - start)
        marks = {"allocation": "a", "initialisation": "i", "first batch": "f", "steady state": "=", "shared": "s",
                 "checkpoint": "C", "hang": "X", "failure": "!", "recovery": "r"}
        bar = [" "] * self.WIDTH
        for ph in phases:
            lo = int((ph.start_s - start) / span * self.WIDTH)
            hi = max(lo + 1, int((ph.end_s - start) / span * self.WIDTH))
            for i in range(max(0, lo), min(self.WIDTH, hi)):
                if bar[i] in (" ", "=") or marks[ph.name] != "=":
                    bar[i] = marks[ph.name]
        ctx.outln(f"job {run.job_id} {run.name}  {compress_hostlist(run.nodes)}  {run.world_size} ranks  "
                  f"step {sched.completed_at(now)}  (UTC, simulated clock)")
        ctx.outln(f"{self._hm(ctx, start):<{self.WIDTH // 2}}{self._hm(ctx, end):>{self.WIDTH // 2 + 2}}")
        ctx.outln("|" + "".join(bar) + "|")
        shared = "  s shared GPUs" if any(ph.name == "shared" for ph in phases) else ""
        ctx.outln("a allocation  i initialisation  f first batch  = steady state  C checkpoint  X hang  ! failure  "
                  f"r recovery{shared}")
        ctx.outln("")
        ctx.outln(f"{'PHASE':<16}{'START':<10}{'END':<10}{'DURATION':>10}  DETAIL")
        hidden = max(0, len(phases) - 24)
        for i, ph in enumerate(phases):
            if 4 <= i < 4 + hidden:
                if i == 4:
                    ctx.outln(f"{'...':<16}{'':<20}{'':>10}  {hidden} more phases (steady state and checkpoints)")
                continue
            ctx.outln(f"{ph.name:<16}{self._hm(ctx, ph.start_s):<10}{self._hm(ctx, ph.end_s):<10}"
                      f"{self._dur(ph.end_s - ph.start_s):>10}  {ph.detail}")
        ctx.outln("")
        failed = run.start_failure
        if failed is not None:
            job = cluster.slurm.job(run.job_id)
            ctx.outln(f"no step completed: the ranks on {failed.node} failed during initialisation; job "
                      f"{job.state if job else 'FAILED'}, exit code {job.exit_code if job else '1:0'}")
            return
        # The step is the slowest rank's: its data wait and compute, then the communication no rank hides.
        slowest = min(prof.ranks, key=lambda r: (r.comm_s, r.rank))
        ctx.outln(f"steady step {prof.step_s:.3f}s = data wait {slowest.data_s:.3f}s + compute "
                  f"{slowest.compute_s:.3f}s + exposed communication {prof.exposed_comm_s:.3f}s on the slowest "
                  f"rank ({prof.bound}-bound)")
        ctx.outln(f"tokens/s {prof.tokens_per_s:,.0f}  tflops/gpu {prof.tflops_per_gpu:.1f}  MFU "
                  f"{100 * prof.mfu:.1f}%  checkpoint {prof.checkpoint_bytes / 1e9:.1f} GB, stall "
                  f"{prof.checkpoint_stall_s:.1f}s per save ({'async' if run.async_checkpoint else 'sync'})")
        before = steps.previous_run(run)
        if before is not None:
            ref = steps.profile_of(ctx.cluster, before)
            ctx.outln(f"previous job ({len(before.nodes)} nodes, {before.world_size} ranks): step {ref.step_s:.3f}s = "
                      f"data wait {ref.data_wait_s:.3f}s + compute {ref.compute_s:.3f}s + exposed communication "
                      f"{ref.exposed_comm_s:.3f}s, tokens/s {ref.tokens_per_s:,.0f}")
        elif run.baseline_step_s:
            ctx.outln(f"reference step {run.baseline_step_s:.3f}s: this run is "
                      f"{prof.step_s / run.baseline_step_s:.2f}x the reference step time")

    def _ranks(self, ctx: Context, run: TrainingRun, prof: steps.StepProfile) -> None:
        now = ctx.clock.elapsed
        hung = run.hang_s is not None and now >= run.hang_s
        width = 40
        failed = run.start_failure
        if failed is not None:
            since = ctx.clock.at(failed.at_s).strftime("%H:%M:%S")
            ctx.outln(f"job {run.job_id} per-rank step breakdown: no step completed")
            ctx.outln(f"{'RANK':>4}  {'NODE':<8}{'GPU':>3}  {'DATA':>7}  {'COMPUTE':>8}  {'WAIT':>7}  BAR")
            for rank in run.ranks:
                state = f"init failed at {since}" if rank.node == failed.node else "killed in init"
                ctx.outln(f"{rank.rank:>4}  {rank.node:<8}{rank.gpu:>3}  {'-':>7}  {'-':>8}  {'-':>7}  {state}")
            return
        ctx.outln(f"job {run.job_id} per-rank step breakdown, step {prof.step_s:.3f}s "
                  f"(d data wait, # compute, - waiting in all-reduce / exposed communication)")
        ctx.outln(f"{'RANK':>4}  {'NODE':<8}{'GPU':>3}  {'DATA':>7}  {'COMPUTE':>8}  {'WAIT':>7}  BAR")
        for r in prof.ranks:
            if hung:
                state = "stuck" if r.rank == run.hang_rank else "waiting in all_reduce"
                since = ctx.clock.at(run.hang_s or 0.0).strftime("%H:%M:%S")
                ctx.outln(f"{r.rank:>4}  {r.node:<8}{r.gpu:>3}  {'-':>7}  {'-':>8}  {'-':>7}  {state} since {since}")
                continue
            scale = width / max(1e-9, prof.step_s)
            d = int(round(r.data_s * scale))
            c = int(round(r.compute_s * scale))
            w = max(0, width - d - c)
            ctx.outln(f"{r.rank:>4}  {r.node:<8}{r.gpu:>3}  {r.data_s:7.3f}  {r.compute_s:8.3f}  {r.comm_s:7.3f}  "
                      f"|{'d' * d}{'#' * c}{'-' * w}|")


def commands() -> list[Command]:
    return [PySpy(), Timeline()]
