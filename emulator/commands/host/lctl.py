"""``lctl get_param`` (Lustre 2.15) on a client: the ``osc.*`` RPC statistics and ``llite.*.stats``.

Each parameter renders :func:`emulator.cluster.lustre_client.client_view`
in the layout of the kernel's seq files (``lprocfs_stats_header``, the
counters' ``samples [unit] min max sum sumsq`` lines, ``osc_rpc_stats_seq_show``'s
histograms). Server parameters (``obdfilter.*``, ``mdt.*``) do not exist on a
client, and ``get_param`` says so as the real tool does.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable

from emulator.cluster.boots import boot_offset
from emulator.cluster.ids import rng
from emulator.cluster.lustre_client import MAX_IN_FLIGHT, PAGE, READ_PAGES, WRITE_PAGES, ClientView, Osc, client_view
from emulator.commands.kit.command import Context, Outcome, RawCommand
from emulator.commands.kit.spec import Flag

#: Seconds after boot the node mounted /lustre.
MOUNT_AFTER_BOOT_S = 41.0


class Lctl(RawCommand):
    name = "lctl"
    summary = "Lustre control utility: read the client's parameters (get_param)"
    section = "Host"
    flags = (Flag("-n", "", "", "print only the value, not the parameter's name"),
             Flag("-N", "", "", "print only the parameter's name, not its value"),
             Flag("-F", "", "", "with -N, mark each writeable parameter with a trailing '='"))
    words = ("get_param",)
    synopsis = "get_param [-n|-N [-F]] <param_path ...>"
    description = ("lctl get_param osc.*.rpc_stats prints, per OST, the RPCs in flight and histograms of pages per\n"
                   "RPC and RPCs in flight; osc.*.stats the RPC counters and how long each waited (req_waittime,\n"
                   "usec); llite.*.stats the mount's syscall counters. Patterns match as in the shell (*, ?).")
    notes = ("Supported: lctl get_param [-n|-N [-F]] with osc.*.stats, osc.*.rpc_stats, osc.*.max_rpcs_in_flight, "
             "llite.*.stats, jobid_var. Server parameters (obdfilter.*, mdt.*) are not on a client.")

    def execute(self, ctx: Context) -> Outcome:
        words = ctx.argv[1:]
        if not words or words[0] in ("help", "-h", "--help"):
            ctx.outln(f"usage: lctl {self.synopsis}")
            return 0 if words else 1
        if words[0] != "get_param":
            raise ctx.fail(f"lctl: {words[0]}: not available here; this client offers get_param", 1)
        rest = words[1:]
        letters = "".join(w[1:] for w in rest if w.startswith("-") and len(w) > 1)
        if "R" in letters:
            raise ctx.fail("get_param: -R (every parameter below a path) is not available here; "
                           "name the parameters, with * or ? for several", 1)
        bad = [c for c in letters if c not in "nNF"]
        if bad:
            raise ctx.fail(f"get_param: invalid option -- '{bad[0]}'\n"
                           f"usage: get_param [-F|n|-N|-R] <param_path1 param_path2 ...>", 22)
        bare, names_only, classify = "n" in letters, "N" in letters, "F" in letters
        paths = [w for w in rest if not w.startswith("-")]
        if not paths:
            raise ctx.fail("usage: get_param [-F|n|-N|-R] <param_path1 param_path2 ...>", 22)
        table = self._params(ctx)
        status = 0
        for pattern in paths:
            hits = [name for name in table if fnmatch.fnmatchcase(name, pattern)]
            if not hits:
                ctx.err(f"error: get_param: param_path '{pattern.replace('.', '/')}': No such file or directory\n")
                status = 2
                continue
            for name in hits:
                if names_only:  # every parameter here is a writeable file (a stats file is cleared by writing)
                    ctx.outln(name + ("=" if classify else ""))
                    continue
                value = table[name]()
                if bare:
                    ctx.out(value)
                elif "\n" in value.rstrip("\n"):
                    ctx.out(f"{name}=\n{value}")
                else:
                    ctx.out(f"{name}={value}")
        return status

    def _params(self, ctx: Context) -> dict[str, Callable[[], str]]:
        """Every parameter this client has, by name, each rendered only when asked for."""
        node = ctx.host
        now = ctx.clock.elapsed
        view = client_view(ctx.cluster, node, now, boot_offset(node) + MOUNT_AFTER_BOOT_S)
        stamp = _Stamps(ctx, view)
        fsname = ctx.cluster.storage.fsname
        table: dict[str, Callable[[], str]] = {"jobid_var": lambda: "SLURM_JOB_ID\n"}
        for osc in view.oscs:
            dev = f"osc.{osc.ost}-osc-{view.tag}"
            table[f"{dev}.max_rpcs_in_flight"] = lambda: f"{MAX_IN_FLIGHT}\n"
            table[f"{dev}.rpc_stats"] = lambda o=osc: _rpc_stats(stamp, o)  # type: ignore[misc]
            table[f"{dev}.stats"] = lambda o=osc: _osc_stats(stamp, o)  # type: ignore[misc]
        table[f"llite.{fsname}-{view.tag}.stats"] = lambda: _llite_stats(stamp, view)
        return table


class _Stamps:
    """The header every stats file starts with, and a seeded spread for each counter's extremes."""

    def __init__(self, ctx: Context, view: ClientView) -> None:
        self.seed, self.host = ctx.cluster.seed, ctx.host.name
        self.now = ctx.clock.at(view.now_s).timestamp()
        self.start = ctx.clock.at(view.mounted_s).timestamp()
        self.ns = rng(self.seed, self.host, "lctl", int(view.now_s)).randrange(10**9)

    def header(self, colon: bool) -> str:
        """``lprocfs_stats_header``: snapshot, start and elapsed time, width 25 (``name:`` in rpc_stats)."""
        out = []
        start_ns = rng(self.seed, self.host, "mount").randrange(10**9)
        elapsed = int(self.now - self.start) * 10**9 + self.ns - start_ns
        for name, sec, ns in (("snapshot_time", int(self.now), self.ns), ("start_time", int(self.start), start_ns),
                              ("elapsed_time", elapsed // 10**9, elapsed % 10**9)):
            if ns < 0:
                sec, ns = sec - 1, ns + 10**9
            label = f"{name}:" if colon else name
            out.append(f"{label:<25} {sec}.{ns:09d} secs.nsecs")
        return "\n".join(out) + "\n"

    def spread(self, *key: object) -> float:
        return rng(self.seed, self.host, "lctl", *key).uniform(0.0, 1.0)


def _counter(name: str, count: int, unit: str, lo: int, hi: int, total: int, sumsq: int | None) -> str:
    """One counter line: ``%-25s %lld samples [%s] %lld %lld %lld[ %llu]``; an unused counter is not printed."""
    tail = "" if sumsq is None else f" {sumsq}"
    return f"{name:<25} {count} samples [{unit}] {lo} {hi} {total}{tail}\n" if count else ""


def _waits(stamp: _Stamps, key: str, counts: list[int], means: list[float]) -> tuple[int, int, int, int, int]:
    """Samples, min, max, sum and sum of squares of RPC waits (µs) drawn around each phase's mean."""
    n = sum(counts)
    total = int(sum(c * m for c, m in zip(counts, means)) * (0.96 + 0.08 * stamp.spread(key, "sum")))
    used = [m for c, m in zip(counts, means) if c]
    if not n:
        return 0, 0, 0, 0, 0
    lo = int(min(used) * (0.2 + 0.2 * stamp.spread(key, "lo")))
    hi = int(max(used) * (3.0 + 2.0 * stamp.spread(key, "hi")))
    sumsq = sum(int(c * (m * m) * 1.3) for c, m in zip(counts, means))
    return n, lo, hi, total, sumsq


def _osc_stats(stamp: _Stamps, osc: Osc) -> str:
    reads, writes = osc.read_rpcs, osc.write_rpcs
    ping_us = 60.0
    n, lo, hi, total, sumsq = _waits(stamp, f"{osc.ost}/wait", [*osc.read_by_phase, *osc.write_by_phase, osc.pings],
                                     [*osc.read_wait_us, *osc.write_wait_us, ping_us])
    active = sum(k * v for k, v in {**osc.read_flight}.items()) + MAX_IN_FLIGHT * writes + osc.pings
    active_sq = sum(k * k * v for k, v in osc.read_flight.items()) + MAX_IN_FLIGHT ** 2 * writes + osc.pings
    rb, wb = READ_PAGES * PAGE, WRITE_PAGES * PAGE
    rn, rlo, rhi, rtot, rsq = _waits(stamp, f"{osc.ost}/read", osc.read_by_phase, osc.read_wait_us)
    wn, wlo, whi, wtot, wsq = _waits(stamp, f"{osc.ost}/write", osc.write_by_phase, osc.write_wait_us)
    pn, plo, phi, ptot, psq = _waits(stamp, f"{osc.ost}/ping", [osc.pings], [ping_us])
    return (stamp.header(colon=False)
            + _counter("req_waittime", n, "usec", lo, hi, total, sumsq)
            + _counter("req_active", n, "reqs", 1, MAX_IN_FLIGHT if reads or writes else 1, active, active_sq)
            + _counter("read_bytes", reads, "bytes", rb, rb, rb * reads, rb * rb * reads)
            + _counter("write_bytes", writes, "bytes", wb, wb, wb * writes, wb * wb * writes)
            + _counter("ost_read", rn, "usec", rlo, rhi, rtot, rsq)
            + _counter("ost_write", wn, "usec", wlo, whi, wtot, wsq)
            + _counter("ost_connect", 1, "usec", 211, 211, 211, 211 * 211)
            + _counter("obd_ping", pn, "usec", plo, phi, ptot, psq))


def _histogram(title: str, rows: list[tuple[int, int, int]]) -> str:
    """One two-sided table of ``osc_rpc_stats_seq_show``: rows (bucket, reads, writes) up to the last used."""
    out = f"\n\t\t\tread\t\t\twrite\n{title:<22}rpcs   % cum % |       rpcs   % cum %\n"
    rt, wt = sum(r for _, r, _ in rows), sum(w for _, _, w in rows)
    rc = wc = 0
    for bucket, r, w in rows:
        rc, wc = rc + r, wc + w
        out += (f"{bucket}:\t\t{r:10d} {_pct(r, rt):3d} {_pct(rc, rt):3d}   | "
                f"{w:10d} {_pct(w, wt):3d} {_pct(wc, wt):3d}\n")
        if rc == rt and wc == wt:
            break
    return out


def _pct(part: int, whole: int) -> int:
    return 100 * part // whole if whole else 0


def _rpc_stats(stamp: _Stamps, osc: Osc) -> str:
    pages = [(1 << i, osc.read_rpcs if 1 << i == READ_PAGES else 0, osc.write_rpcs if 1 << i == WRITE_PAGES else 0)
             for i in range(11)]
    flight = [(i, osc.read_flight.get(i, 0), osc.write_flight.get(i, 0)) for i in range(1, MAX_IN_FLIGHT + 1)]
    offsets = _offsets(osc)
    pending_r = osc.read_in_flight * READ_PAGES * 2 if osc.read_in_flight >= MAX_IN_FLIGHT else 0
    pending_w = WRITE_PAGES * 4 if osc.write_in_flight else 0
    return (stamp.header(colon=True)
            + f"read RPCs in flight:  {osc.read_in_flight}\n"
            + f"write RPCs in flight: {osc.write_in_flight}\n"
            + f"pending write pages:  {pending_w}\n"
            + f"pending read pages:   {pending_r}\n"
            + _histogram("pages per rpc", pages)
            + _histogram("rpcs in flight", flight)
            + _histogram("offset", offsets))


#: Page offsets of the loader's random reads are uniform over objects of this many pages (1 GiB).
READ_OBJECT_PAGES = 1 << 18


def _offsets(osc: Osc) -> list[tuple[int, int, int]]:
    """The ``offset`` table: RPCs by the log2 bucket of their page offset in the object (label 0, then 2^(i-1)).
    Each save writes its object from the start in 1 MiB RPCs; the loader reads anywhere in its shards."""
    saves = osc.write_rpcs // max(1, osc.rpcs_per_save)
    writes = [0] * 21
    for k in range(osc.rpcs_per_save if saves else 0):
        writes[(k * WRITE_PAGES).bit_length()] += saves
    top = READ_OBJECT_PAGES.bit_length() - 1
    reads = [0] + [osc.read_rpcs * (1 << (i - 1)) // READ_OBJECT_PAGES for i in range(1, top + 1)]
    reads[top] += osc.read_rpcs - sum(reads)
    reads += [0] * (21 - len(reads))
    return [(0 if i == 0 else 1 << (i - 1), reads[i], writes[i]) for i in range(21)]


def _llite_stats(stamp: _Stamps, view: ClientView) -> str:
    reads = sum(o.read_rpcs for o in view.oscs)
    rb, wb = READ_PAGES * PAGE, WRITE_PAGES * PAGE
    by_phase = [sum(o.read_by_phase[i] for o in view.oscs) for i in (0, 1)]
    rn, rlo, rhi, rtot, rsq = _waits(stamp, "llite/read", by_phase, [w + 15.0 for w in view.oscs[0].read_wait_us])
    # DCP writes each shard with large buffered writes: each copies 8 MiB into the page cache (about 2 ms)
    # and waits while the dirty pages drain in 1 MiB RPCs.
    chunk = 8 * wb
    w_phase = [sum(o.write_by_phase[i] for o in view.oscs) * wb // chunk for i in (0, 1)]
    wn, wlo, whi, wtot, wsq = _waits(stamp, "llite/write", w_phase, [2000.0 + w for w in view.oscs[0].write_wait_us])
    # The loader opens each shard once per 64 sequences; a save creates and closes one file per rank.
    opens = [r // 64 + w // 64 for r, w in zip(by_phase, w_phase)]
    md = view.metadata_us
    on, olo, ohi, otot, osq = _waits(stamp, "llite/open", opens, [2 * m for m in md])
    cn, clo, chi, ctot, csq = _waits(stamp, "llite/close", opens, md)
    gn, glo, ghi, gtot, gsq = _waits(stamp, "llite/getattr", [2 * n for n in opens], [m / 2 for m in md])
    return (stamp.header(colon=False)
            + _counter("read_bytes", reads, "bytes", rb, rb, rb * reads, None)
            + _counter("write_bytes", wn, "bytes", chunk, chunk, chunk * wn, None)
            + _counter("read", rn, "usec", rlo, rhi, rtot, rsq)
            + _counter("write", wn, "usec", wlo, whi, wtot, wsq)
            + _counter("open", on, "usec", olo, ohi, otot, osq)
            + _counter("close", cn, "usec", clo, chi, ctot, csq)
            + _counter("getattr", gn, "usec", glo, ghi, gtot, gsq))
