"""Wrong quantitative claims found in review stay out of the handbook.

Each rule below is one correction from the reviews of the pages (see the
project's FACTS, "Corrections found in review"). A rule is either a pattern
that must not appear, or a pair: text that may appear only together with a
qualifier in the same block (a paragraph, a list, or one table row). The
scan covers every Markdown page and SVG illustration under ``docs/`` and the
prose of every lab (``scenario``, ``goal``, ``hints`` in ``labs/*.toml``).
Rules marked ``prose_only`` skip the output lines of ``console`` blocks, which
the emulator writes and the page cannot edit.

Each rule carries the wrong text it was written against (``example``), taken
from the page before it was corrected, and a test checks that the rule still
catches it, so a rule cannot silently stop matching anything.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LABS = ROOT / "labs"
LAB_PROSE = ("scenario", "goal", "hints")

FLAGS = re.IGNORECASE


@dataclass(frozen=True)
class Rule:
    id: str
    why: str
    example: str
    forbid: str = ""  # a pattern that must not appear anywhere
    when: str = ""  # ... or: a block matching `when` must also match `unless`
    unless: str = ""
    prose_only: bool = False


RULES = [
    Rule(
        "nvlink-1-18",
        "On HGX H100 a GPU whose NVLink fails loses NVLink peer-to-peer with every GPU, not 1/18 of its "
        "bandwidth (Fabric Manager User Guide, ACCESS_LINK_FAILURE_MODE)",
        forbid=r"(drops?|falls?|loses?)\s+(by\s+)?1/18|1/18\s+per\s+link",
        example="the GPU's NVLink bandwidth drops by 1/18 per link; collectives through it slow down",
    ),
    Rule(
        "nvlink-nv17",
        "NV17/NV16 must not be read as a proportional loss: say the GPU loses NVLink peer-to-peer",
        when=r"`NV1[67]`",
        unless=r"peer-to-peer",
        example="cell reads `NV18`: a bonded set of 18 NVLinks. Anything else between two GPUs (`NV17`, `NV16`, or a\n"
        "PCIe path such as `SYS`) means links are missing.",
    ),
    Rule(
        "requeue-needs-requeue-flag",
        "scontrol requeue fails on a job with Requeue=0 (the operator page's own job); say to check Requeue= first",
        when=r"scontrol\s+requeue",
        unless=r"Requeue=",
        example="| One node degraded (GPU, port, thermal) | drain it: `scontrol update nodename=<node> state=drain "
        'reason="<what, ticket>"`; requeue the job without it: `scontrol requeue <jobid>` | hardware or fabric team |',
    ),
    Rule(
        "sinfo-reason-20-chars",
        "sinfo -R shows only the first 20 characters of a reason (%20E): put the ticket id first, show a wider format",
        forbid=r"will\s+see\s+in\s+`sinfo\s+-R`",
        example="The `reason` string in `scontrol` is what the next on-call engineer will see in `sinfo -R`: write what",
    ),
    Rule(
        "nccl-channel-blocks",
        "Each NCCL channel is one thread block on its own SM, not a few thread blocks",
        forbid=r"a\s+few\s+(GPU\s+)?thread\s+blocks",
        example="builds *channels*: parallel rings or trees, each driven by a few\nGPU thread blocks.",
    ),
    Rule(
        "speed-mask-0xf2",
        "0xf2 = NDR, HDR, EDR, FDR and DDR (mstflint IB_LINK_SPEED bits); bit 0x1 (SDR) is not set",
        forbid=r"0x0*f2\s*\([^)\n]*\bSDR\b",
        example="Enabled Link Speed              : 0x000000f2 (NDR,HDR,EDR,FDR,SDR)",
    ),
    Rule(
        "shell-heredoc-case",
        "The emulator's shell supports here-documents and case; only shell functions are unsupported",
        forbid=r"(here-documents|`case`)[^.]*\bnot\s+supported",
        example="(there is no job control), here-documents, `case` and shell functions are not supported, and loops stop",
    ),
    Rule(
        "ib-counters-32-bit",
        "Classic IB error counters are 16-, 8- or 4-bit (LinkDownedCounter stops at 255), not 32-bit",
        forbid=r"32-bit\s+classic(\s+error)?\s+counters|classic\s+error\s+counters\s+are\s+32-bit",
        example="`-x` asks for the extended (64-bit) counters, which do not saturate; the 32-bit classic counters of",
    ),
    Rule(
        "perfquery-capmask2",
        "perfquery -x shows 64-bit error counters only where the port advertises them in CapMask2",
        when=r"extended\s+\(64-bit\)\s+counters",
        unless=r"CapMask2",
        example="`-x` asks for the extended (64-bit) counters, which do not saturate; the 32-bit classic counters of",
    ),
    Rule(
        "gdr-level-default",
        "NCCL 2.21.5 defaults NCCL_NET_GDR_LEVEL to PXB; state it",
        forbid=r"its\s+default\s+depends\s+on\s+the\s+platform",
        example="`PIX`/`PXB`/`PHB`/`SYS` terms; its default depends on the platform); past that it stages through host memory",
    ),
    Rule(
        "zoneless-since",
        "journalctl --since reads a time without a zone as local time: write '... UTC'",
        forbid=r"--since\s+'\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?'",
        prose_only=True,
        example="$ journalctl -k -o short-iso --no-pager --since '2026-03-11 08:30:00' --until '2026-03-11 09:00:00'",
    ),
    Rule(
        "zoneless-sacct",
        "sacct reads -S/-E in local time: run it as TZ=UTC sacct",
        forbid=r"(?<!TZ=UTC )\bsacct\s[^\n`]*?\s(-S|--starttime)[ =]\d",
        prose_only=True,
        example="$ sacct -a -N node02 -S 2026-03-11T08:30:00 -E 2026-03-11T09:00:00 --format JobID",
    ),
    Rule(
        "queue-py-grep",
        "Without pin_memory the loader waits in get (multiprocessing/queues.py): name both forms",
        when=r"queue\.py",
        unless=r"multiprocessing/queues\.py",
        example="(`_next_data` → `_get_data` → `_try_get_data` → `get (queue.py)`), while the other ranks sit in a collective",
    ),
    Rule(
        "nccl-debug-default",
        "With NCCL_DEBUG unset NCCL prints nothing (default NONE); WARN is not the default",
        forbid=r"WARN`?\s+by\s+default|default(\s+log\s+level\s+is)?\s+`?WARN\b",
        example="| `NCCL_DEBUG=INFO` (`WARN` by default is silent) | the log above; set it for every job |\n"
        '- "No `NCCL_DEBUG=INFO` log: the job ran with the default `WARN`."',
    ),
    Rule(
        "torch-timeout-2x",
        "The 10-minute ProcessGroupNCCL default arrived in PyTorch 2.2; 2.0 and 2.1 used 30 minutes",
        forbid=r"10\s+min(ute)?s?\s+by\s+default\s+in\s+PyTorch\s+2\.x|defaults\s+to\s+10\s+minutes\s+in\s+current\s+releases"
        r"|10\s+min\s+to\s+detect\s+a\s+hang\s+\(the\s+PyTorch",
        example="than the process group's timeout (10 minutes by default in PyTorch 2.x, 30 minutes in old 1.x",
    ),
    Rule(
        "torch-timeout-history",
        "A 10-minute watchdog default must say from which PyTorch version (2.2) or give the 30-minute case",
        when=r"\b10[ -]min(ute)?s?\b[^.]*\b(timeout|watchdog)|\b(timeout|watchdog)\b[^.]*\b10[ -]min(ute)?s?\b",
        unless=r"2\.2|30[ -]min",
        example="watchdog, for example, turns a stuck collective into an error after a timeout that defaults to\n"
        "10 minutes in current releases",
    ),
    Rule(
        "flight-recorder-names",
        "TORCH_FR_* exist only from PyTorch 2.9; before that TORCH_NCCL_TRACE_BUFFER_SIZE / TORCH_NCCL_DEBUG_INFO_TEMP_FILE",
        when=r"TORCH_FR_",
        unless=r"2\.9[\s\S]*TORCH_NCCL_(TRACE_BUFFER_SIZE|DEBUG_INFO_TEMP_FILE)|"
        r"TORCH_NCCL_(TRACE_BUFFER_SIZE|DEBUG_INFO_TEMP_FILE)[\s\S]*2\.9",
        example="(`TORCH_NCCL_DUMP_ON_TIMEOUT=1` with `TORCH_FR_BUFFER_SIZE`) writes the last collectives of each rank",
    ),
    Rule(
        "dmesg-iso-exact",
        "dmesg --time-format iso drifts after suspend/resume like -T; exact stamps come from journalctl -k --utc",
        forbid=r"time-format\s+iso`?\s+is\s+exact",
        example="times, which can drift after a suspend; `--time-format iso` is exact.",
    ),
    Rule(
        "dmesg-iso-needs-journal",
        "Where dmesg --time-format iso is recommended, point to journalctl -k for exact stamps",
        when=r"time-format\s+iso",
        unless=r"journalctl\s+-k",
        example="- Prefer commands that print absolute timestamps: `dmesg --time-format iso` (or `-T`) rather than\n"
        "  seconds since boot, `journalctl --utc`, `sacct` with explicit `--starttime`/`--endtime`.",
    ),
    Rule(
        "reboot-nextstate-resume",
        "scontrol reboot nextstate=RESUME returns the node before any health check and clears the drain reason",
        forbid=r"scontrol\s+reboot\b[^`\n]*nextstate=resume",
        example='`scontrol reboot ASAP nextstate=resume reason="<what, ticket>" <node>`',
    ),
    Rule(
        "tlimit-headroom",
        "GPU T.Limit Temp is the margin to T.Limit; headroom to slowdown is the margin + 2 C",
        forbid=r"headroom:\s+degrees\s+below\s+the\s+point\s+where\s+slowdown|T\.Limit\s+headroom",
        example="| `GPU T.Limit Temp` | 50 C | headroom: degrees below the point where slowdown starts |",
    ),
    Rule(
        "dcgm-r4-duration",
        "The dcgmi diag reference gives no duration for level 4",
        forbid=r"-r\s+4`?\s+\((over|more\s+than)\s+an?\s+hour|r\s+4[^.\n]{0,40}over\s+an\s+hour",
        example="and suits an epilogue after a failure; `-r 3` (about 15 minutes) and `-r 4` (over an hour) are for",
    ),
    Rule(
        "lustre-server-labels",
        "Lustre's servers are MDS and OSS; MDT and OST are their targets",
        forbid=r"servers\s+\((MDT|OST)s?\)",
        example='<text class="small" x="815" y="460" text-anchor="middle">metadata servers (MDT)</text>',
    ),
    Rule(
        "ten-percent-slower",
        "A 10% longer step is a 9.1% throughput loss; a 10% throughput loss is an 11.1% longer step",
        forbid=r"10\s?%\s+step-time\s+regression\s+is\s+a\s+10\s?%\s+loss|10\s?%\s+(slower|longer)[^.]{0,80}?\b10\s?%\s+(loss|less|fewer)"
        r"|recovers\s+the\s+10\s?%",
        example="At 4.4 s per step (one late rank adding 0.4 s), the same arithmetic gives 36%: a 10% step-time\n"
        "regression is a 10% loss of everything the cluster produces for this job.",
    ),
    Rule(
        "moe-all-to-all",
        "Expert parallelism runs two all-to-alls per expert layer per forward pass (dispatch and combine)",
        forbid=r"\b(an|one)\s+all-to-all\s+per\s+expert\s+layer",
        example="patterns (an all-to-all per expert layer) that a dense-model example does not capture.",
    ),
    Rule(
        "mfu-win-source",
        "The MFU 'considered a win' words are in stas00's compute/accelerator/benchmarks/README.md",
        when=r"considered\s+a\s+win",
        unless=r"compute/accelerator/benchmarks",
        example='About 50% MFU "is considered a win" for large-model training\n'
        "([ML Engineering: performance](https://github.com/stas00/ml-engineering/blob/master/training/performance/README.md)).",
    ),
    Rule(
        "drain-assumptions",
        "Running on one node fewer recovers the loss only if the layout and the global batch allow it: say so",
        when=r"\b31\s+nodes\b",
        unless=r"global\s+batch",
        example="running on 31 nodes (if the layout allows) or replacing it from a spare pool recovers the 10% for",
    ),
    Rule(
        "busbw-k-conversion-hierarchical-only",
        "busbw x (k-1)/(n-1) is a per-GPU network rate only for hierarchical algorithms (Tree/NVLSTree on "
        "2 nodes, CollNet); a flat ring with one NIC per GPU puts about busbw / NICs per node on each NIC "
        "(stas00 network README and its footnote; nccl-tests PERFORMANCE.md)",
        when=r"\(k\s*[−-]\s*1\)\s*/\s*\(n\s*[−-]\s*1\)",
        unless=r"hierarchical",
        example="To compare a multi-node busbw with the NIC rate, convert it to a per-GPU network rate:\n"
        "`busbw × (k−1)/(n−1)` for *k* nodes and *n* ranks\n"
        "([ML Engineering: network](https://github.com/stas00/ml-engineering/blob/master/network/README.md)).",
    ),
    Rule(
        "two-node-half-nic-rate-healthy",
        "A 2-node busbw at 'half the NIC rate' by the (k-1)/(n-1) conversion is not 'healthy, bound inside the "
        "nodes': NCCL ran a tree there; force NCCL_ALGO=Ring to judge the fabric (sjeaugey, nccl-tests #196)",
        forbid=r"half\s+the\s+NIC\s+rate[^.]{0,40}healthy|bound\s+inside\s+the\s+nodes",
        example="358.87 × 1/15 ≈ 23.9 GB/s per GPU is half the NIC rate: healthy, and bound inside the\n"
        "   nodes, not by the fabric.",
    ),
    Rule(
        "two-node-sample-is-a3-mega",
        "The published 2-node sample (busbw 338.8 GB/s) is GCP A3 Mega over GPUDirect-TCPXO, not InfiniBand: "
        "say so wherever it is quoted",
        when=r"\b338\.8",
        unless=r"A3\s+Mega",
        prose_only=True,
        example="The formula holds on real output: a 2-node × 8 H100 run (n = 16) at\n"
        "8 GiB reported algbw 180.71 and busbw 338.82 GB/s, and 180.71 × 30/16 = 338.83.",
    ),
    Rule(
        "two-node-pair-test-forces-ring",
        "A 2-node all_reduce_perf bisects the fabric only with NCCL_ALGO=Ring: NCCL's default on 2 nodes is a "
        "tree whose busbw can exceed the network and hide a slow port (sjeaugey, nccl-tests #196)",
        when=r"all_reduce_perf`?\s+(run\s+)?on\s+(2\s+nodes|node\s+pairs)",
        unless=r"NCCL_ALGO=Ring",
        example="An `all_reduce_perf` run on 2 nodes takes under a minute and reports bus bandwidth directly. Split the\n"
        "job's nodes into pairs; the pair with low bandwidth at large message sizes contains the fault.",
    ),
]


@dataclass(frozen=True)
class Hit:
    place: str
    line: int
    rule: Rule
    text: str

    def __str__(self) -> str:
        return f"{self.place}:{self.line}: [{self.rule.id}] {self.text!r}\n    {self.rule.why}"


def _mask_console_output(text: str) -> str:
    """Blank the output lines of ```console blocks (the emulator's, not the page's), keeping line numbers."""
    out, inside = [], False
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("```"):
            inside = (not inside) and stripped[3:].strip().startswith("console")
            out.append(line)
        elif inside and not stripped.startswith("$ "):
            out.append("")
        else:
            out.append(line)
    return "\n".join(out)


def _blocks(text: str) -> list[tuple[int, str]]:
    """(offset, text) of each block: runs of non-blank lines, with every table row a block of its own."""
    blocks: list[tuple[int, str]] = []
    offset, start, lines = 0, 0, []
    for line in text.split("\n") + [""]:
        if line.strip().startswith("|"):
            if lines:
                blocks.append((start, "\n".join(lines)))
                lines = []
            blocks.append((offset, line))
        elif line.strip():
            if not lines:
                start = offset
            lines.append(line)
        elif lines:
            blocks.append((start, "\n".join(lines)))
            lines = []
        offset += len(line) + 1
    return blocks


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def check_text(text: str, rules: list[Rule] = RULES) -> list[tuple[int, Rule, str]]:
    """Every rule broken by ``text``: (line number in ``text``, rule, the offending text)."""
    found = []
    masked = _mask_console_output(text)  # same lines as ``text``, console output blanked
    for rule in rules:
        body = masked if rule.prose_only else text
        if rule.forbid:
            for m in re.finditer(rule.forbid, body, FLAGS):
                found.append((_line(body, m.start()), rule, m.group(0)))
        if rule.when:
            for start, block in _blocks(body):
                m = re.search(rule.when, block, FLAGS)
                if m and not re.search(rule.unless, block, FLAGS):
                    found.append((_line(body, start + m.start()), rule, block.strip()[:160]))
    return sorted(found, key=lambda item: item[0])


def _lab_prose(path: Path) -> list[tuple[str, str]]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    found = []
    for key in LAB_PROSE:
        value = data.get(key)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                found.append((key, item))
    return found


def scan() -> list[Hit]:
    hits = []
    for path in sorted(DOCS.rglob("*.md")) + sorted(DOCS.rglob("*.svg")):
        text = path.read_text(encoding="utf-8")
        for line, rule, snippet in check_text(text):
            hits.append(Hit(str(path.relative_to(ROOT)), line, rule, snippet))
    for path in sorted(LABS.glob("*.toml")):
        raw = path.read_text(encoding="utf-8")
        for key, prose in _lab_prose(path):
            for line_in_prose, rule, snippet in check_text(prose):
                # Point at the file line holding the offending line of the prose (or at the field).
                first = prose.split("\n")[line_in_prose - 1].strip()[:40]
                at = raw.find(first) if first else -1
                line = _line(raw, at) if at >= 0 else _line(raw, raw.find(key))
                hits.append(Hit(f"{path.relative_to(ROOT)} ({key})", line, rule, snippet))
    return hits


def test_pages_and_labs_carry_none_of_the_corrected_claims() -> None:
    hits = scan()
    assert not hits, "corrected claims are back:\n" + "\n".join(str(h) for h in hits)


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_each_rule_catches_the_text_it_was_written_against(rule: Rule) -> None:
    broken = [r.id for _, r, _ in check_text(rule.example, [rule])]
    assert broken and set(broken) == {rule.id}, (
        f"{rule.id} no longer matches its example: {rule.example!r}"
    )


def test_rule_ids_are_unique() -> None:
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids))


def test_console_output_is_skipped_only_by_prose_only_rules() -> None:
    page = "```console\n$ true\nEnabled Link Speed : 0x000000f2 (NDR,HDR,EDR,FDR,SDR)\n--since '2026-03-11 08:30:00'\n```\n"
    broken = {r.id for _, r, _ in check_text(page)}
    assert "speed-mask-0xf2" in broken
    assert "zoneless-since" not in broken


def test_lab_prose_is_read_from_scenario_goal_and_hints(tmp_path: Path) -> None:
    lab = tmp_path / "x.toml"
    lab.write_text('id = "x"\nscenario = "a"\ngoal = "b"\nhints = ["c", "d"]\nlook_for = "e"\n', encoding="utf-8")
    assert _lab_prose(lab) == [("scenario", "a"), ("goal", "b"), ("hints", "c"), ("hints", "d")]
