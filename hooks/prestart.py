"""Build hook: inline the terminal's prestart script into every page's <head>.

``docs/assets/javascripts/terminal/prestart.js`` must run before anything
else on the page (it starts the emulator worker when a start-up snapshot is
held). Fetched as a file, it waits for a round trip, or a revalidation on
hosts that send no freshness, before the worker can start; inlined, it runs as
soon as the parser reaches it. This hook gives the templates
(``overrides/main.html``):

* ``extra.prestart_script``: the script without its header comment;
* ``extra.prestart_csp``: its ``'sha256-…'`` source for the page's
  Content-Security-Policy, which allows no other inline script;

and leaves the file itself out of the site.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from mkdocs.exceptions import PluginError

SOURCE = "assets/javascripts/terminal/prestart.js"
PRESTART = Path(__file__).resolve().parents[1] / "docs" / SOURCE


def inline_script() -> tuple[str, str]:
    """The script as the page carries it, and its CSP hash source."""
    text = PRESTART.read_text(encoding="utf-8")
    if not text.startswith("/*") or "*/" not in text:
        raise PluginError(f"{SOURCE} must start with its header comment")
    code = text[text.index("*/") + 2:].strip()
    if "</script" in code.lower():
        raise PluginError(f"{SOURCE} cannot be inlined: it contains '</script'")
    digest = base64.b64encode(hashlib.sha256(code.encode("utf-8")).digest()).decode("ascii")
    return code, f"'sha256-{digest}'"


def on_config(config):
    config["extra"]["prestart_script"], config["extra"]["prestart_csp"] = inline_script()
    return config


def on_files(files, config):
    inlined = files.get_file_from_path(SOURCE)
    if inlined is not None:
        files.remove(inlined)
    return files
