"""nccl-tests (2.13) binaries: collective bandwidth sweeps on the model.

``all_reduce_perf -b 8 -e 8G -f 2 -g 8`` on a compute node runs one process
driving eight GPUs. Across nodes a launcher starts one process per task and
only rank 0 prints, like the real tests built with MPI:

* under ``srun`` the binary reads ``SLURM_PROCID``, ``SLURM_NTASKS`` and
  ``SLURM_STEP_NODELIST`` (or ``SLURM_JOB_NODELIST``), tasks placed in blocks
  of ``SLURM_NTASKS / SLURM_NNODES`` per node;
* under ``mpirun`` (:mod:`emulator.commands.nccl.mpirun`) it reads ``OMPI_COMM_WORLD_RANK``, ``OMPI_COMM_WORLD_SIZE``
  and ``OMPI_COMM_WORLD_HOSTS`` (the host of each rank, comma-separated: the
  emulator's stand-in for what PMIx tells the ranks).

Each row's time comes from :func:`emulator.cluster.collectives.collective`,
with the algorithm and protocol NCCL's tuning model picks for the size
(``NCCL_ALGO``/``NCCL_PROTO`` narrow the pick, with NCCL 2.21's fallbacks); ``NCCL_DEBUG=INFO`` adds the init lines of
:mod:`emulator.cluster.nccl_debug`, and with ``NCCL_DEBUG_SUBSYS`` naming
``TUNING`` rank 0's per-call choice, interleaved with the rows as in real logs.
"""

from __future__ import annotations

import argparse
from collections.abc import Generator

from emulator.cluster import memo
from emulator.cluster.catalog import H100
from emulator.cluster.collectives import (
    CollectiveError,
    NcclInitError,
    check_p2p,
    check_usable,
    collective,
)
from emulator.cluster.ids import rng
from emulator.cluster.nccl_algo import tuning_line
from emulator.cluster.nccl_debug import Proc, init_lines, level, subsystems
from emulator.cluster.scheduler import expand_hostlist
from emulator.cluster.sharing import buffers_mib, share_with_job, short_of_memory, time_share
from emulator.commands.kit.command import Command, Context, ParsedCommand
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.nccl.numbers import c_float, c_int, parse_size
from emulator.limits import RANK_LIMIT, SIZES_LIMIT, limit_reached

TYPES = {"int8": 1, "char": 1, "uint8": 1, "int32": 4, "int": 4, "uint32": 4, "int64": 8, "uint64": 8,
         "half": 2, "float16": 2, "float": 4, "float32": 4, "double": 8, "float64": 8, "bfloat16": 2}
TYPE_NAMES = {"char": "int8", "int": "int32", "float16": "half", "float32": "float", "float64": "double"}
REDOPS = ("sum", "prod", "max", "min", "avg", "mulsum")

#: The usage text nccl-tests prints for -h and after a bad option (each line ends in a space).
USAGE = "USAGE: {prog} \n\t" + " \n\t".join((
    "[-t,--nthreads <num threads>]",
    "[-g,--ngpus <gpus per thread>]",
    "[-b,--minbytes <min size in bytes>]",
    "[-e,--maxbytes <max size in bytes>]",
    "[-i,--stepbytes <increment size>]",
    "[-f,--stepfactor <increment factor>]",
    "[-n,--iters <iteration count>]",
    "[-m,--agg_iters <aggregated iteration count>]",
    "[-w,--warmup_iters <warmup iteration count>]",
    "[-p,--parallel_init <0/1>]",
    "[-c,--check <check iteration count>]",
    "[-o,--op <sum/prod/min/max/avg/mulsum/all>]",
    "[-d,--datatype <nccltype/all>]",
    "[-r,--root <root>]",
    "[-z,--blocking <0/1>]",
    "[-y,--stream_null <0/1>]",
    "[-T,--timeout <time in seconds>]",
    "[-G,--cudagraph <num graph launches>]",
    "[-C,--report_cputime <0/1>]",
    "[-a,--average <0/1/2/3> report average iteration time <0=RANK0/1=AVG/2=MIN/3=MAX>]",
)) + " \n\t[-h,--help]\n"


class NcclTest(ParsedCommand):
    """One nccl-tests binary (``<op>_perf``)."""

    section = "Collectives"
    add_help_flag = False
    usage_status = 1
    needs_gpus = True

    def __init__(self, op: str, summary: str) -> None:
        super().__init__()
        self.op = op
        self.name = f"{op}_perf"
        self.directory = "/opt/nccl-tests/build"
        self.summary = summary
        self.notes = ("Runs on a compute node (-g GPUs per process) or across nodes under srun or mpirun, where "
                      "rank 0 prints. Times come from the cluster model and the algorithm NCCL picks per size: NVLS "
                      "inside a node, NVLSTree across 2 nodes (above what the NICs carry in a ring), a ring at its "
                      "slowest hop; NCCL_ALGO=Ring forces the ring. NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING "
                      "prints the choice.")

    def configure(self, parser: ArgumentParser) -> None:
        add = parser.add_argument
        add("-t", "--nthreads", default="1", metavar="N", help="number of threads per process")
        add("-g", "--ngpus", default="1", metavar="N", help="GPUs per thread")
        add("-b", "--minbytes", default="32M", metavar="SIZE", help="minimum size (K, M, G suffixes)")
        add("-e", "--maxbytes", default="32M", metavar="SIZE", help="maximum size")
        add("-i", "--stepbytes", default="1M", metavar="SIZE", help="increment between sizes")
        add("-f", "--stepfactor", default="1", metavar="N", help="multiplication factor between sizes")
        add("-n", "--iters", default="20", metavar="N", help="iterations per size")
        add("-m", "--agg_iters", default="1", metavar="N", help="operations aggregated per iteration")
        add("-w", "--warmup_iters", default="5", metavar="N", help="warmup iterations")
        add("-p", "--parallel_init", default="0", metavar="0/1", help="threads initialise NCCL in parallel")
        add("-c", "--check", default="1", metavar="N", help="check iterations (0 disables validation)")
        add("-o", "--op", default="sum", metavar="OP", help="reduction: sum, prod, min, max, avg, mulsum")
        add("-d", "--datatype", default="float", metavar="TYPE", help="data type")
        add("-r", "--root", default="0", metavar="N", help="root rank (broadcast, reduce)")
        add("-z", "--blocking", default="0", metavar="0/1", help="blocking collectives")
        add("-y", "--stream_null", default="0", metavar="0/1", help="use the default stream")
        add("-T", "--timeout", default="0", metavar="SECONDS", help="timeout per test")
        add("-G", "--cudagraph", default="0", metavar="N", help="CUDA graph launches")
        add("-C", "--report_cputime", default="0", metavar="0/1", help="report CPU time instead of GPU time")
        add("-a", "--average", default="1", metavar="0-3", help="report time of rank 0, avg, min or max")
        add("-h", "--help", action="store_true", help="print the usage")

    def usage_error(self, message: str) -> str:
        """getopt's complaint, then the tool's own usage text."""
        words = message.split(":", 1)[-1].split() if "unrecognized" in message else []
        bad = words[0] if words else ""
        if bad.startswith("--"):
            first = f"{self.name}: unrecognized option '{bad}'"
        elif bad:
            first = f"{self.name}: invalid option -- '{bad[1:2]}'"
        else:
            first = f"{self.name}: option requires an argument -- '{message.split()[1][1:2] if ' ' in message else '?'}'"
        return f"{first}\ninvalid option '?'\n" + USAGE.format(prog=self.name).rstrip("\n")

    # -- where the ranks are -------------------------------------------------------------
    def _procs(self, ctx: Context) -> tuple[int, list[str]]:
        """This process's index and the host of every process."""
        env = ctx.env
        if "OMPI_COMM_WORLD_SIZE" in env:
            size = max(1, c_int(env["OMPI_COMM_WORLD_SIZE"]))
            hosts = [h for h in env.get("OMPI_COMM_WORLD_HOSTS", "").split(",") if h] or [ctx.host.name] * size
            return c_int(env.get("OMPI_COMM_WORLD_RANK", "0")), (hosts * size)[:size]
        if "SLURM_PROCID" in env and "SLURM_NTASKS" in env:
            size = max(1, c_int(env["SLURM_NTASKS"]))
            try:
                nodes = expand_hostlist(env.get("SLURM_STEP_NODELIST") or env.get("SLURM_JOB_NODELIST") or "")
            except ValueError:
                nodes = []
            nodes = nodes or [ctx.host.name]
            per = max(1, -(-size // len(nodes)))
            return c_int(env["SLURM_PROCID"]), [nodes[min(len(nodes) - 1, i // per)] for i in range(size)]
        return 0, [ctx.host.name]

    def execute(self, ctx: Context, args: argparse.Namespace) -> Generator[float, None, int]:
        if args.help:
            ctx.out(USAGE.format(prog=self.name))
            return 0
        sizes = {}
        for key, label in (("minbytes", "minbytes"), ("maxbytes", "maxbytes")):
            parsed = parse_size(getattr(args, key))
            if parsed is None:
                ctx.err(f"invalid size specified for '{label}'\n")
                return 255
            sizes[key] = parsed
        lo, hi = sizes["minbytes"], sizes["maxbytes"]
        if lo > hi:
            ctx.err(f"invalid sizes for 'minbytes' and 'maxbytes': {lo} > {hi}\n")
            return 255
        step_bytes = max(1, parse_size(args.stepbytes) or 1)
        factor = c_int(args.stepfactor)
        threads, ngpus = max(1, c_int(args.nthreads)), max(1, c_int(args.ngpus))
        iters, warmup, check = max(1, c_int(args.iters)), max(0, c_int(args.warmup_iters)), c_int(args.check)
        dtype = args.datatype if args.datatype in TYPES else None
        if dtype is None:
            ctx.err(f"invalid type {args.datatype}\n")
            return 255
        op_name = args.op if args.op in REDOPS else None
        if op_name is None:
            ctx.err(f"invalid op {args.op}\n")
            return 255
        proc, hosts = self._procs(ctx)
        if proc != 0:
            return 0
        return (yield from self._sweep(ctx, hosts, threads, ngpus, lo, hi, step_bytes, factor, iters, warmup,
                                       check, TYPE_NAMES.get(dtype, dtype), op_name, c_int(args.root),
                                       c_int(args.agg_iters), c_int(args.cudagraph), c_int(args.blocking) != 0,
                                       c_int(args.parallel_init) != 0))

    def _sweep(self, ctx: Context, hosts: list[str], threads: int, ngpus: int, lo: int, hi: int, step_bytes: int,
               factor: int, iters: int, warmup: int, check: int, dtype: str, op_name: str, root: int,
               agg: int, graph: int, blocking: bool = False, parallel: bool = False) -> Generator[float, None, int]:
        cluster = ctx.cluster
        per = threads * ngpus
        step_text = f"{factor}(factor)" if factor > 1 else f"{step_bytes}(bytes)"
        ctx.outln(f"# nThread {threads} nGpus {ngpus} minBytes {lo} maxBytes {hi} step: {step_text} warmup iters: "
                  f"{warmup} iters: {iters} agg iters: {max(1, agg)} validation: {1 if check else 0} graph: {graph}")
        if blocking:
            ctx.outln("# Blocking Enabled: wait for completion and barrier after each collective ")
        if parallel:
            ctx.outln("# Parallel Init Enabled: threads call into NcclInitRank concurrently ")
        ctx.outln("#")
        ctx.outln("# Using devices")
        procs: list[Proc] = []
        seen: dict[str, int] = {}
        for index, host in enumerate(hosts):
            local = seen.get(host, 0)
            seen[host] = local + 1
            pid = rng(cluster.seed, "nccl-tests", host, int(cluster.clock.elapsed)).randint(20_000, 400_000) + local
            for i in range(min(per, RANK_LIMIT)):  # past any node's GPUs: check_usable fails on the first extra
                procs.append(Proc(rank=index * per + i, node=host, gpu=local * per + i, pid=pid))
        ranks = [(p.node, p.gpu) for p in procs]
        try:
            check_usable(cluster, ranks)
        except CollectiveError as exc:
            pid = next((p.pid for p in procs if p.node == exc.node), procs[0].pid)
            ctx.outln(f"{exc.node}: Test CUDA failure common.cu:892 '{exc.cuda_error}'")
            ctx.outln(f" .. {exc.node} pid {pid}: Test failure common.cu:842")
            return 1
        for p in procs:
            node = cluster.node(p.node)
            assert node is not None
            gpu = node.gpus[p.gpu]
            domain, bus, dev = (int(part, 16) for part in gpu.pci_bus_id.split(".")[0].split(":")[-3:])
            ctx.outln(f"#  Rank {p.rank:2d} Group  0 Pid {p.pid:6d} on {p.node:>10} device {p.gpu:2d} "
                      f"[{domain:04x}:{bus:02x}:{dev:02x}] {H100.name}")
        # Send, receive and expected buffers (two without validation) must fit beside 1 GiB of headroom.
        limit = (H100.memory_mib * 2**20 - 2**30) // (3 if check else 2)
        if hi > limit:
            hi = limit
            ctx.outln("#")
            ctx.outln(f"# Reducing maxBytes to {hi} due to memory limitation")
        # Each process allocates its buffers before NCCL starts, in what the jobs already on its GPUs
        # leave free: a process whose GPU lacks room prints cudaMalloc's error (AllocateBuffs sits above
        # main in common.cu, the call in run() below the device lines) and the test stops.
        # Reading what the jobs leave changes nothing: the GPUs' samples share one step profile.
        with memo.scope(True):
            short = short_of_memory(cluster, ranks, buffers_mib(hi, check != 0))
            share = time_share(cluster, ranks)
        if short:
            failed = {p.pid: p.node for p in procs if (p.node, p.gpu) in short}
            for pid, host in failed.items():
                ctx.outln(f"{host}: Test CUDA failure common.cu:745 'out of memory'")
                ctx.outln(f" .. {host} pid {pid}: Test failure common.cu:921")
                ctx.outln(f" .. {host} pid {pid}: Test failure common.cu:842")
            return 1
        env = dict(ctx.env)
        try:
            check_p2p(cluster, ranks, env)
        except NcclInitError as exc:
            # NCCLCHECK prints ncclGetErrorString and ncclGetLastError (the last WARN, kept whatever
            # NCCL_DEBUG says): ncclCommInitAll for one process, ncclGroupEnd after ncclCommInitRank.
            at = 904 if len(hosts) == 1 else 910
            pid = next((p.pid for p in procs if p.node == exc.node), procs[0].pid)
            ctx.outln(f"{exc.node}: Test NCCL failure common.cu:{at} '{exc.cuda_error} / {exc.warning}'")
            ctx.outln(f" .. {exc.node} pid {pid}: Test failure common.cu:842")
            return 1
        for line in init_lines(cluster, procs, env):
            ctx.outln(line)
        ctx.outln("#")
        ctx.outln(f"# {'':>10}  {'':>12}  {'':>8}  {'':>6}  {'':>6}           out-of-place                       "
                  f"in-place          ")
        ctx.outln(f"# {'size':>10}  {'count':>12}  {'type':>8}  {'redop':>6}  {'root':>6}  {'time':>7}  "
                  f"{'algbw':>6}  {'busbw':>6} {'#wrong':>6}  {'time':>7}  {'algbw':>6}  {'busbw':>6} {'#wrong':>6}")
        ctx.outln(f"# {'(B)':>10}  {'(elements)':>12}  {'':>8}  {'':>6}  {'':>6}  {'(us)':>7}  {'(GB/s)':>6}  "
                  f"{'(GB/s)':>6}  {'':>5}  {'(us)':>7}  {'(GB/s)':>6}  {'(GB/s)':>6}  {'':>5}")
        n = len(procs)
        word = TYPES[dtype]
        reduces = self.op in ("all_reduce", "reduce_scatter", "reduce", "sendrecv")
        redop = op_name if reduces else "none"
        root_col = root if self.op in ("broadcast", "reduce") else -1
        # With NCCL_DEBUG_SUBSYS including TUNING, rank 0 logs NCCL's pick on every call (NCCL 2.21),
        # interleaved with the row nccl-tests is printing: warm-up at the largest and smallest sizes,
        # then each timed iteration and the validation call of each place.
        tuning = level(env) in ("INFO", "TRACE") and "TUNING" in subsystems(env)
        prefix = f"{procs[0].node}:{procs[0].pid}:{procs[0].pid} [{procs[0].gpu}] NCCL INFO "
        calls = iters * max(1, agg) + (1 if check else 0)
        # Beside a running job the sweep slows its steps until the last size (emulator.cluster.sharing).
        beside = share_with_job(cluster, ranks, self.name)
        for warm in (hi, lo):
            res = collective(cluster, self.op, self._shown(warm, n, word), ranks, env, sample=("warmup",),
                             share=share)
            if tuning and res.option is not None:
                ctx.out((prefix + tuning_line(res.option, res.size_bytes, res.estimate_us) + "\n") * warmup)
        total, count_bw, rows = 0.0, 0, 0
        size = lo
        while size <= hi and rows < SIZES_LIMIT:
            shown = self._shown(size, n, word)
            count = shown // word // (n if self.op in ("all_gather", "reduce_scatter", "alltoall") else 1)
            ctx.out(f"{shown:12d}  {count:12d}  {dtype:>8}  {redop:>6}  {root_col:6d}")
            pause = 0.0
            with memo.scope(True):  # measuring a size only reads the model: its places share NCCL's options
                measured = [(place, collective(cluster, self.op, shown, ranks, env, sample=(place, rows), share=share))
                            for place in ("oop", "ip")]
            for place, res in measured:
                if tuning and res.option is not None:
                    ctx.out((prefix + tuning_line(res.option, shown, res.estimate_us) + "\n") * calls)
                t = res.time_us
                if t >= 10000.0:
                    ts = f"{t:7.0f}"
                elif t >= 100.0:
                    ts = f"{t:7.1f}"
                else:
                    ts = f"{t:7.2f}"
                # alltoall and sendrecv have no in-place variant to validate: nccl-tests prints N/A there.
                no_inplace = place == "ip" and self.op in ("alltoall", "sendrecv")
                wrong = f"{0:6d}" if check and not no_inplace else "   N/A"
                ctx.out(f"  {ts}  {res.algbw:6.2f}  {res.busbw:6.2f} {wrong}")
                total += res.busbw
                count_bw += 1
                pause += (warmup + iters * max(1, agg)) * t / 1e6
            ctx.out("\n")
            rows += 1
            yield pause + 0.05
            if beside is not None:
                beside.end_s = cluster.clock.elapsed
            if factor > 1:
                size *= factor
            else:
                size += step_bytes
        avg = total / count_bw if count_bw else 0.0
        floor = c_float(ctx.env.get("NCCL_TESTS_MIN_BW", ""))
        verdict = "" if floor is None else ("FAILED" if avg < floor * 0.9 else "OK")
        ctx.outln("# Out of bounds values : 0 OK")
        ctx.outln(f"# Avg bus bandwidth    : {avg:g} {verdict}")
        ctx.outln("#")
        ctx.outln("")
        if size <= hi:
            ctx.err(limit_reached(f"{self.name}: stopped after {SIZES_LIMIT} sizes; the average is of those") + "\n")
            return 1
        return 1 if verdict == "FAILED" else 0


    def _shown(self, size: int, n: int, word: int) -> int:
        """The size column for a requested size: whole elements, and whole per-rank counts where the count is per rank."""
        count = size // word
        if self.op in ("all_gather", "reduce_scatter", "alltoall"):
            return count // n * n * word
        return count * word


def commands() -> list[Command]:
    return [
        NcclTest("all_reduce", "nccl-tests: all-reduce bandwidth sweep"),
        NcclTest("all_gather", "nccl-tests: all-gather bandwidth sweep"),
        NcclTest("reduce_scatter", "nccl-tests: reduce-scatter bandwidth sweep"),
        NcclTest("alltoall", "nccl-tests: all-to-all bandwidth sweep"),
        NcclTest("broadcast", "nccl-tests: broadcast bandwidth sweep"),
        NcclTest("reduce", "nccl-tests: reduce bandwidth sweep"),
        NcclTest("sendrecv", "nccl-tests: send/receive bandwidth sweep"),
    ]
