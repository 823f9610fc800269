"""Serve a built site folder on 127.0.0.1, offline, with the right MIME types.

    python3 serve_site.py [FOLDER] [--port 8000]

Only the standard library: it runs on any laptop with Python 3.11+, no
network needed. WebAssembly and JavaScript modules get their MIME types
whatever the machine's own tables say.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
from pathlib import Path

TYPES = {".wasm": "application/wasm", ".mjs": "text/javascript", ".js": "text/javascript",
         ".json": "application/json", ".whl": "application/zip", ".zip": "application/zip"}


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}


def main() -> None:
    here = Path(__file__).resolve().parent
    default = here / "site" if (here / "site").is_dir() else Path("site")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", default=str(default), help="the built site (default: %(default)s)")
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default: 8000)")
    args = parser.parse_args()
    handler = functools.partial(Handler, directory=args.folder)
    with http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler) as server:
        print(f"Serving {args.folder} at http://127.0.0.1:{args.port}/ (Ctrl-C stops)")
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()


if __name__ == "__main__":
    main()
