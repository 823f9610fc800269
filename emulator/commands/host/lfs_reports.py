"""``lfs quota``, ``lfs getstripe`` and ``lfs project``: quotas, file layouts and project ids, as lfs prints them.

Formats follow lustre/utils/lfs.c and liblustreapi: ``lfs quota`` prints a
title per quota id, a ``%15s%8s %7s%8s%8s%8s %7s%8s%8s`` header and one row
whose block usage carries ``*`` once it reaches the hard limit;
``lfs getstripe`` prints a directory's default layout line and each file's
``lmm_*`` fields with its object table; ``lfs project -d`` prints
``%5u %c %s`` (project id, ``P`` when inherited, path). The numbers come from
:mod:`emulator.cluster.quotas` and :func:`emulator.cluster.checkpoints.shard_ost`.
"""

from __future__ import annotations

import re

from emulator.cluster.checkpoints import shard_ost
from emulator.cluster.ids import rng
from emulator.cluster.quotagrant import target_quotas
from emulator.cluster.quotas import PROJECT_ID, Quota, project_dirs, quota
from emulator.commands.kit.command import Context

#: Default layout of every directory on the filesystem: one 1 MiB stripe on an OST the MDS picks.
STRIPE_SIZE = 1_048_576
_KIND_NAME = {"-u": "usr", "-g": "grp", "-p": "prj"}
_ID_LETTER = {"usr": "u", "grp": "g", "prj": "p"}


def _kbytes(num: int, human: bool) -> str:
    """lfs's ``kbytes2str``: KiB, or ``%5.4g`` with T/G/M (``-h``)."""
    if not human:
        return str(num)
    for shift, unit in ((40, "P"), (30, "T"), (20, "G"), (10, "M")):
        if num >> shift:
            return f"{num / (1 << shift):5.4g}{unit}"
    return f"{num}k"


def _quota_lines(q: Quota, mount: str, human: bool) -> list[str]:
    title = f"Disk quotas for {q.kind} {q.name} ({_ID_LETTER[q.kind]}id {q.ident}):"
    header = (f"{'Filesystem':>15}{'used' if human else 'kbytes':>8} {'quota':>7}{'limit':>8}{'grace':>8}"
              f"{'files':>8} {'quota':>7}{'limit':>8}{'grace':>8}")
    star = "*" if q.over else " "
    row = (f"{mount:>15} {_kbytes(q.used_kib, human):>7}{star} {_kbytes(0, human):>6} "
           f"{_kbytes(q.hard_kib, human):>7} {'-':>7} {q.files:>7}  {0:>6} {0:>7} {'-':>7}")
    return [title, header, row]


def _target_lines(ctx: Context, q: Quota, human: bool) -> list[str]:
    """``-v``: lfs's ``print_obd_quota`` for the MDTs then the OSTs (usage, the grant as ``limit``, ``*`` at it),
    then the grants' totals."""
    lines = []
    for t in target_quotas(ctx.cluster, q.used_kib, q.files, q.hard_kib):
        star = "*" if t.granted_kib and t.used_kib >= t.granted_kib else " "
        row = f"{'':>15} {_kbytes(t.used_kib, human):>7}{star} {'-':>6} {_kbytes(t.granted_kib, human):>7} {'-':>7}"
        row += f" {t.files:>7}  {'-':>6} {0:>7} {'-':>7}" if t.kind == "MDT" else f" {'-':>7} {'-':>7} {'-':>7} {'-':>7}"
        lines += [t.uuid, row]
    blocks = sum(t.granted_kib for t in target_quotas(ctx.cluster, q.used_kib, q.files, q.hard_kib) if t.kind == "OST")
    return [*lines, f"Total allocated inode limit: 0, total allocated block limit: {_kbytes(blocks, human)}"]


def lfs_quota(ctx: Context, words: list[str]) -> int:
    """``lfs quota [-h] [-v] [-u USER | -g GROUP | -p PROJID] /lustre``."""
    human, verbose, asked, paths = False, False, [], []
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("-") and len(word) > 2 and set(word[1:]) <= {"h", "v"}:
            human, verbose = human or "h" in word, verbose or "v" in word
        elif word == "-h":
            human = True
        elif word == "-v":
            verbose = True
        elif word in _KIND_NAME:
            if i + 1 >= len(words):
                raise ctx.fail(f"lfs quota: option requires an argument -- '{word[1]}'", 22)
            asked.append((_KIND_NAME[word], words[i + 1]))
            i += 1
        elif word.startswith("-"):
            raise ctx.fail(f"lfs quota: unrecognized option '{word}'\nusage: quota [-hv] [-u|-g|-p <uname>|<uid>|"
                           "<gname>|<gid>|<projid>] <filesystem>", 22)
        else:
            paths.append(word)
        i += 1
    fs = ctx.cluster.storage
    if len(paths) != 1:
        raise ctx.fail("lfs quota: missing filesystem\nusage: quota [-hv] [-u|-g|-p <uname>|<uid>|<gname>|<gid>|"
                       "<projid>] <filesystem>", 22)
    full = ctx.fs.abspath(paths[0])
    if not (full == fs.mountpoint or full.startswith(fs.mountpoint + "/")):
        raise ctx.fail(f"lfs quota: {paths[0]} isn't mounted on lustre", 19)
    if not asked:
        asked = [("usr", ctx.user), ("grp", ctx.user)]
    for kind, name in asked:
        q = quota(ctx.cluster, kind, name)
        if q is None:
            raise ctx.fail(f"lfs quota: can't find id for {kind} {name}: No such file or directory", 2)
        ctx.outln("\n".join(_quota_lines(q, fs.mountpoint, human) + (_target_lines(ctx, q, human) if verbose else [])))
    return 0


def _objid(ctx: Context, path: str) -> int:
    return rng(ctx.cluster.seed, "lustre-objid", path).randint(2_000_000, 90_000_000)


def ost_of(ctx: Context, path: str) -> int:
    """The OST index that holds ``path``'s one object."""
    run = ctx.cluster.training
    count = sum(1 for t in ctx.cluster.storage.targets if t.kind == "OST")
    if run is not None:
        m = re.fullmatch(re.escape(run.checkpoint_dir) + r"/step_(\d+)/__(\d+)_0\.distcp", path)
        if m:
            return shard_ost(ctx.cluster, int(m.group(1)), int(m.group(2)))
    return rng(ctx.cluster.seed, "lustre-stripe", path).randrange(max(1, count))


def _file_layout(ctx: Context, path: str, index_only: bool, count_only: bool) -> list[str]:
    ost = ost_of(ctx, path)
    if index_only:
        return [str(ost)]
    if count_only:
        return ["1"]
    obj = _objid(ctx, path)
    return [path, "lmm_stripe_count:  1", f"lmm_stripe_size:   {STRIPE_SIZE}", "lmm_pattern:       raid0",
            "lmm_layout_gen:    0", f"lmm_stripe_offset: {ost}", "\tobdidx\t\t objid\t\t objid\t\t group",
            f"\t{ost:>6}\t{obj:>14}\t{obj:>#13x}\t{0:>14}", ""]


def lfs_getstripe(ctx: Context, words: list[str]) -> int:
    """``lfs getstripe [-d] [-i] [-c] PATH...``: a file's layout, or a directory's and its files'."""
    flags = {w for w in words if w.startswith("-")}
    bad = flags - {"-d", "--directory", "-i", "--stripe-index", "-c", "--stripe-count"}
    if bad:
        raise ctx.fail(f"lfs getstripe: unrecognized option '{sorted(bad)[0]}'\nusage: getstripe [-d] [-i] [-c] "
                       "<dirname|filename> ...", 22)
    paths = [w for w in words if not w.startswith("-")]
    if not paths:
        raise ctx.fail("lfs getstripe: no file or directory given\nusage: getstripe [-d] [-i] [-c] "
                       "<dirname|filename> ...", 22)
    index_only = bool(flags & {"-i", "--stripe-index"})
    count_only = bool(flags & {"-c", "--stripe-count"})
    dir_only = bool(flags & {"-d", "--directory"})
    mount = ctx.cluster.storage.mountpoint
    status = 0
    for name in paths:
        full = ctx.fs.abspath(name)
        if not (full == mount or full.startswith(mount + "/")):
            ctx.err(f"lfs getstripe: {name}: not on a Lustre filesystem: Inappropriate ioctl for device (25)\n")
            status = 25
            continue
        if not ctx.fs.exists(full):
            ctx.err(f"lfs getstripe: cannot open '{name}': No such file or directory (2)\n")
            status = 2
            continue
        shown = name.rstrip("/") or "/"
        if not ctx.fs.isdir(full):
            lines = _file_layout(ctx, full, index_only, count_only)
            ctx.outln("\n".join([shown, *lines[1:]] if lines[0] == full else lines))
            continue
        if index_only or count_only:
            ctx.outln("-1" if index_only else "1")
        else:
            ctx.outln(f"{shown}\nstripe_count:  1 stripe_size:   {STRIPE_SIZE} pattern:       raid0 "
                      "stripe_offset: -1\n")
        if dir_only:
            continue
        for child in sorted(ctx.fs.listdir(full)):
            child_path = f"{full.rstrip('/')}/{child}"
            if not ctx.fs.isdir(child_path):
                lines = _file_layout(ctx, child_path, index_only, count_only)
                ctx.outln("\n".join([f"{shown}/{child}", *lines[1:]] if lines[0] == child_path else lines))
    return status


def lfs_project(ctx: Context, words: list[str]) -> int:
    """``lfs project [-d] PATH...``: each path's project id (``P``: new files inherit it)."""
    dir_only = "-d" in words
    bad = [w for w in words if w.startswith("-") and w != "-d"]
    if bad:
        raise ctx.fail(f"lfs project: unrecognized option '{bad[0]}'\nusage: project [-d] <file|directory ...>", 22)
    paths = [w for w in words if not w.startswith("-")] or ["."]
    tagged = project_dirs(ctx.cluster)
    status = 0
    for name in paths:
        full = ctx.fs.abspath(name)
        if not ctx.fs.exists(full):
            ctx.err(f"lfs project: failed to get xattr for '{name}': No such file or directory\n")
            status = 2
            continue
        shown = name.rstrip("/") or "/"
        entries = [(shown, full)] if dir_only or not ctx.fs.isdir(full) else \
            [(f"{shown}/{c}", f"{full.rstrip('/')}/{c}") for c in sorted(ctx.fs.listdir(full))]
        for label, path in entries:
            inside = any(path == d or path.startswith(d + "/") for d in tagged)
            flag = "P" if inside and ctx.fs.isdir(path) else "-"
            ctx.outln(f"{PROJECT_ID if inside else 0:>5} {flag} {label}")
    return status

