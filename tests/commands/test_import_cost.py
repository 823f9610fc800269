"""Importing every command family stays cheap: no family pulls in the standard library's network and mail
packages (``xml.sax.saxutils`` alone imports urllib, http and email: a third of a second in the browser,
paid by the first command of that family)."""

from __future__ import annotations

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
