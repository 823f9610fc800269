"""Build hook: every page names a known lab, and its seed is a whole number.

A page's front matter picks the lab its terminal starts with (``lab: <id>``,
``seed: N``). A page without ``lab:`` gets the healthy ``sandbox``. An unknown
id or a bad seed fails the build with one message naming every bad page. The
lab's title and goal go into the page's metadata for the terminal's lab panel.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from emulator.errors import LabError  # noqa: E402
from emulator.labs import all_labs  # noqa: E402

SANDBOX = "sandbox"

_problems: list[str] = []


def on_pre_build(config):
    _problems.clear()


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
    return markdown


def on_env(env, config, files):
    """Fail once every page has been read, listing all the bad pages."""
    if _problems:
        raise PluginError("Pages name labs or seeds that do not exist:\n  " + "\n  ".join(_problems))
    return env
