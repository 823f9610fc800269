"""Build and serve the site for the browser tests.

The site is built once per test run, with ``SITE_URL`` set to the address it
is served at, so Material's instant navigation works (a mismatch makes every
in-site click a full reload).
"""

from __future__ import annotations

import functools
import http.server
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TYPES = {".wasm": "application/wasm", ".mjs": "text/javascript", ".js": "text/javascript"}


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}
    #: Extra response headers (a test may serve the site under a stricter policy).
    headers_to_add: dict[str, str] = {}

    def end_headers(self) -> None:
        for name, value in self.headers_to_add.items():
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


def build_site(out: Path, site_url: str, root: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of ``root`` into ``out``; the finished process."""
    env = {**os.environ, "SITE_URL": site_url, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)],
                          cwd=root, env=env, capture_output=True, text=True, check=False)


class SiteServer:
    """A threaded static server on 127.0.0.1 on a free port."""

    def __init__(self, headers: dict[str, str] | None = None) -> None:
        self.headers = headers or {}
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.sock.close()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.server: http.server.ThreadingHTTPServer | None = None

    def serve(self, folder: Path) -> None:
        handler_class = type("Handler", (QuietHandler,), {"headers_to_add": self.headers})
        handler = functools.partial(handler_class, directory=str(folder))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
