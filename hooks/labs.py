"""Build hook: every page names a known lab, and its seed is a whole number.

A page's front matter picks the lab its terminal starts with (``lab: <id>``,
``seed: N``). A page without ``lab:`` gets the healthy ``sandbox``. An unknown
id or a bad seed fails the build with one message naming every bad page. The
lab's title and goal go into the page's metadata for the terminal's lab panel.

The labs index (``labs/index.md``) is generated here too, as the command
reference is: the marker ``<!-- lab-table -->`` becomes one row per lab file
(in the reading order of the lab's first page in the nav), and
``<!-- lab-list -->`` becomes the terminal's own ``lab list``. A new lab file
appears without editing the page. The table keeps the markup the terminal's
script marks solved labs in (``data-mdx-component="lab-solves"``, the lab's id
in the first cell's ``code``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from emulator.errors import LabError  # noqa: E402
from emulator.labs import all_labs  # noqa: E402

SANDBOX = "sandbox"
INDEX = "labs/index.md"
TABLE_MARKER = "<!-- lab-table -->"
LIST_MARKER = "<!-- lab-list -->"
#: The seed the index's links open each lab with.
INDEX_SEED = 7

_problems: list[str] = []


def on_pre_build(config):
    _problems.clear()
    all_labs.cache_clear()  # under `mkdocs serve`, a rebuild reads the lab files again


def _labs():
    try:
        return all_labs()
    except LabError as exc:
        raise PluginError(f"the lab files do not load: {exc}") from None


def on_page_markdown(markdown, page, config, files):
    """Check the page's lab and seed, and settle the values the template renders."""
    known = _labs()
    labs = {SANDBOX, *known}
    lab = page.meta.get("lab", SANDBOX)
    seed = page.meta.get("seed", 0)
    where = page.file.src_uri
    if not isinstance(lab, str) or lab not in labs:
        _problems.append(f"{where}: unknown lab {lab!r} (known labs: {', '.join(sorted(labs))})")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        _problems.append(f"{where}: seed must be a whole number >= 0, not {seed!r}")
    page.meta["lab"] = lab
    page.meta["seed"] = seed
    if lab in known:
        page.meta["lab_title"] = known[lab].title
        page.meta["lab_goal"] = " ".join(known[lab].goal.split())
    if where == INDEX:
        markdown = _index_markdown(markdown, known, config)
    return markdown


def _index_markdown(markdown: str, known: dict, config) -> str:
    for marker in (TABLE_MARKER, LIST_MARKER):
        if marker not in markdown:
            raise PluginError(f"{INDEX}: the marker {marker} is missing, so the labs index has nowhere to go")
    order = _nav_order(config["nav"] or [])
    labs = sorted((lab for lab in known.values() if not lab.is_sandbox),
                  key=lambda lab: (min((order.get(p, len(order)) for p in lab.pages), default=len(order)), lab.id))
    docs = Path(config["docs_dir"])
    return markdown.replace(TABLE_MARKER, lab_table(labs, docs)).replace(LIST_MARKER, lab_list())


def lab_table(labs: list, docs: Path) -> str:
    """One row per lab: title and id, its pages, its question, difficulty, and a link with a seed."""
    rows = ["| Lab | Page | The question | Difficulty | Open |", "|---|---|---|---|---|"]
    for lab in labs:
        pages = ", ".join(f"[{_short_title(docs, p)}](../{p})" for p in lab.pages)
        goal = " ".join(lab.goal.split()).replace("|", "\\|")
        first = lab.pages[0] if lab.pages else "index.md"
        rows.append(f"| {lab.title}<br>`{lab.id}` | {pages} | {goal} | {lab.difficulty} | "
                    f"[seed {INDEX_SEED}](../{first}?lab={lab.id}&seed={INDEX_SEED}) |")
    return "\n".join(rows) + "\n"


def lab_list() -> str:
    """The terminal's ``lab list``, as a console example."""
    from emulator.session import Session

    out, status = Session(lab=SANDBOX).execute("lab list")
    if status != 0:
        raise PluginError(f"{INDEX}: `lab list` failed:\n{out}")
    return "```console\n$ lab list\n" + out.rstrip("\n") + "\n```\n"


def _short_title(docs: Path, page: str) -> str:
    """A page's title without its section ("Networking: NCCL" is "NCCL")."""
    from mkdocs.utils.meta import get_data

    path = docs / page
    if not path.is_file():
        raise PluginError(f"{INDEX}: a lab names the page {page}, which does not exist under docs/")
    _, meta = get_data(path.read_text(encoding="utf-8"))
    title = str(meta.get("title", path.stem.replace("-", " ")))
    short = title.split(": ", 1)[-1]
    return short[:1].upper() + short[1:]


def _nav_order(nav: list) -> dict[str, int]:
    """Each page of the nav and its position in reading order."""
    order: dict[str, int] = {}

    def walk(item: object) -> None:
        if isinstance(item, str):
            order.setdefault(item, len(order))
        elif isinstance(item, dict):
            for value in item.values():
                walk(value)
        elif isinstance(item, list):
            for value in item:
                walk(value)

    walk(nav)
    return order


def on_env(env, config, files):
    """Fail once every page has been read, listing all the bad pages."""
    if _problems:
        raise PluginError("Pages name labs or seeds that do not exist:\n  " + "\n  ".join(_problems))
    return env
