"""Importing the command families: one a call when the browser warms them, and cheaply: no family pulls in
the standard library's network and mail packages (``xml.sax.saxutils`` alone imports urllib, http and email:
a third of a second in the browser, paid by the first command of that family)."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("urllib.request", "http.client", "email.message", "ssl", "socket", "hashlib")

PROBE = f"""
import sys
from emulator.commands import registry
registry.build_index()
print(" ".join(name for name in {HEAVY!r} if name in sys.modules))
"""


def test_no_family_imports_the_network_or_mail_packages() -> None:
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == ""


WARM = """
import sys
from emulator.commands import registry
calls = 0
while registry.warm_next():
    calls += 1
print(calls, all(f"emulator.commands.{name}" in sys.modules for name in registry.FAMILIES))
"""


def test_warming_imports_one_family_a_call_until_all_are() -> None:
    """The worker imports the families in the background, one a task: each call imports exactly one."""
    from emulator.commands import registry

    proc = subprocess.run([sys.executable, "-c", WARM], capture_output=True, text=True, check=True)
    calls, all_imported = proc.stdout.split()
    assert (int(calls), all_imported) == (len(registry.FAMILIES), "True")


WARM_ALL = """
import json, pkgutil, sys
import emulator, emulator.web as web
web.warm_all()
names = [info.name for info in pkgutil.walk_packages(emulator.__path__, "emulator.")]
print(json.dumps({"missing": [n for n in names if n not in sys.modules and not n.endswith(".__main__")],
                  "open": len(web._sessions), "unread": web.warm_next()}))
"""


def test_warming_everything_imports_every_module_and_leaves_no_session_open() -> None:
    """What the snapshot maker holds, and what the build compiles the standard library for."""
    proc = subprocess.run([sys.executable, "-c", WARM_ALL], capture_output=True, text=True, check=True)
    assert json.loads(proc.stdout) == {"missing": [], "open": 0, "unread": False}
