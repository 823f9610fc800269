"""Publishing under a subpath, as a project-pages host does (``/handbook/``).

The site is built with ``site_url`` ending in ``/handbook/`` and served from
that path only; the root of the server answers 404. Assets, the worker, the
wheel and instant navigation must all resolve there.
"""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest

from .site import QuietHandler, SiteServer, build_site
from .terminal import follow_link, open_lab_page, run

PREFIX = "/handbook/"


class SubpathHandler(QuietHandler):
    """Serves the folder under PREFIX and nothing else."""

    def translate_path(self, path: str) -> str:
        if not path.startswith(PREFIX):
            return str(Path(self.directory) / "__outside_the_prefix__")
        return super().translate_path("/" + path[len(PREFIX):])


@pytest.fixture(scope="module")
def subpath_site(tmp_path_factory):
    server = SiteServer()
    url = server.url.rstrip("/") + PREFIX
    out = tmp_path_factory.mktemp("subpath-site")
    built = build_site(out, url)
    if built.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed:\n{built.stdout}{built.stderr}", pytrace=False)
    handler = functools.partial(SubpathHandler, directory=str(out))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", server.port), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield url
    httpd.shutdown()
    httpd.server_close()


def test_the_site_works_under_a_subpath(page, subpath_site, requests):
    open_lab_page(page, subpath_site)
    assert run(page, "hostname").endswith("login01\n")
    page.evaluate("window.__sameWindow = true")
    follow_link(page, "a.md-footer__link--next")
    assert page.evaluate("window.__sameWindow") is True, "instant navigation fell back to a full reload"
    assert run(page, "echo under-a-subpath").endswith("under-a-subpath\n")
    assert requests.count("pyodide.asm.wasm") == 1
    paths = [url.split("127.0.0.1", 1)[1].split("/", 1)[1] for url in requests.urls if "127.0.0.1" in url]
    assert paths and all(("/" + p).startswith(PREFIX) for p in paths), "a request escaped the subpath"
