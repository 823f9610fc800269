"""Serve a built site folder, offline, with the right MIME types: on this laptop, or to a room.

    python3 serve_site.py [FOLDER] [--port 8000] [--host 127.0.0.1]

Only the standard library: it runs on any laptop with Python 3.11+, no
network needed. WebAssembly and JavaScript modules get their MIME types
whatever the machine's own tables say.

By default it answers on 127.0.0.1 only: each learner runs their own copy.
``--host 0.0.0.0`` answers on every network interface, so one laptop serves
the room: learners open ``http://ADDRESS:PORT/`` with the instructor's
address on the local network, and the copy should be built for that address
(``make workshop SITE_URL=http://ADDRESS:PORT/``) so that its canonical
links and sitemap name it. Everything a learner does stays in their own
browser: the server only hands out files.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
from pathlib import Path

TYPES = {".wasm": "application/wasm", ".mjs": "text/javascript", ".js": "text/javascript",
         ".json": "application/json", ".whl": "application/zip", ".zip": "application/zip"}
#: The address answered on unless told otherwise: this machine only.
LOCAL = "127.0.0.1"


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}


def make_server(folder: str, host: str = LOCAL, port: int = 8000) -> http.server.ThreadingHTTPServer:
    """A server of ``folder`` on ``host``:``port`` (port 0: any free port), not started."""
    handler = functools.partial(Handler, directory=folder)
    return http.server.ThreadingHTTPServer((host, port), handler)


def where(host: str, port: int) -> str:
    """What to tell the people who will open the site."""
    if host == LOCAL:
        return f"at http://{LOCAL}:{port}/ (this machine only)"
    if host in ("0.0.0.0", "::", ""):
        return (f"on every network interface, port {port}: learners open http://ADDRESS:{port}/ with this "
                "machine's address on the local network")
    return f"at http://{host}:{port}/"


def main(argv: list[str] | None = None) -> None:
    here = Path(__file__).resolve().parent
    default = here / "site" if (here / "site").is_dir() else Path("site")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", default=str(default), help="the built site (default: %(default)s)")
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    parser.add_argument("--host", default=LOCAL,
                        help="address to answer on (default: %(default)s, this machine only; "
                             "0.0.0.0 serves the local network, for a room)")
    args = parser.parse_args(argv)
    with make_server(args.folder, args.host, args.port) as server:
        print(f"Serving {args.folder} {where(args.host, server.server_address[1])} (Ctrl-C stops)")
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()


if __name__ == "__main__":
    main()
