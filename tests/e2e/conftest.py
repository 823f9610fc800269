"""Fixtures of the browser tests: one built site, one server, one Chromium.

Each test gets a fresh browser context (its own storage and cache) and a
record of every request it made, and fails if any went to a host other than
127.0.0.1. A failed build is reported once, with mkdocs' output.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import pytest

from .site import ROOT, SiteServer, build_site

CHROMIUM = "/usr/bin/chromium"
LAUNCH_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
RESULTS = ROOT / "test-results"

playwright_api = pytest.importorskip("playwright.sync_api")


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> SiteServer:
    """The built site, served; its address is ``site.url``."""
    server = SiteServer()
    out = tmp_path_factory.mktemp("site")
    built = build_site(out, server.url)
    if built.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed:\n{built.stdout}{built.stderr}", pytrace=False)
    server.folder = out  # type: ignore[attr-defined]
    server.serve(out)
    yield server
    server.close()


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium", pytrace=False)
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_FLAGS, headless=True)
        yield browser
        browser.close()


class Recorded:
    """Every request a context made."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    def elsewhere(self) -> list[str]:
        """Web requests to any host but 127.0.0.1."""
        return [url for url in self.urls
                if urlparse(url).scheme in ("http", "https", "ws", "wss") and urlparse(url).hostname != "127.0.0.1"]

    def count(self, suffix: str) -> int:
        return sum(1 for url in self.urls if url.split("?")[0].endswith(suffix))


@pytest.fixture
def requests() -> Recorded:
    return Recorded()


@pytest.fixture
def context(browser, requests):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.on("request", lambda request: requests.urls.append(request.url))
    yield context
    context.close()
    assert requests.elsewhere() == [], "requests left 127.0.0.1"


@pytest.fixture
def page(context):
    page = context.new_page()
    page.set_default_timeout(30000)
    yield page


@pytest.fixture(scope="module")
def lab_page(browser, site):
    """One lab page with a ready terminal, shared by the tests of a module that leave it usable."""
    from .terminal import open_lab_page

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30000)
    open_lab_page(page, site.url)
    yield page
    context.close()


@pytest.fixture(scope="session")
def results() -> Path:
    RESULTS.mkdir(exist_ok=True)
    return RESULTS
