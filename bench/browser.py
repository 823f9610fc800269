"""Benchmarks in Debian Chromium: time to first command, navigation, paint, latency, bytes.

Everything is measured against a floor served in the same run: a bare page
that loads the same vendored Pyodide in a worker and prints one line, so the
ratios say what the site adds on top of the runtime itself.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import statistics
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from playwright.sync_api import BrowserContext, Page, sync_playwright

from tests.e2e.site import SiteServer, build_site

from .cpython import paced_commands, percentile, representative_commands
from .settle import settle

Row = tuple[str, float, str, float | None, str]
HERE = Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]
LAB_PAGE = "guides/training-step/"
OTHER_PAGE = "guides/data-loading/"
TERMINAL = '[data-mdx-component="terminal"]'
INPUT = f"{TERMINAL} [data-mdx-input]"
OUTPUT = f"{TERMINAL} [data-mdx-output]"
HELP_MARK = "Commands of this simulated cluster"
#: A representative command that has not finished after this long is reported, not waited for.
COMMAND_LIMIT_MS = 60000
#: A page load that has not printed its first line after this long is reported, not waited for (a throttled
#: cold load on a busy shared machine takes a minute).
LOAD_LIMIT_MS = 180000
#: Pairs of first paints (the lab page, then the plain page) behind each run's paint ratio.
PAINT_PAIRS = 7
#: The throttled link of the cold figures "at 50 Mbit/s": a reader's good home connection, not loopback.
THROTTLE = {"mbit_s": 50, "latency_ms": 20}


def _add_floor(site: Path) -> None:
    """The floor page, pointed at the site's own copy of Pyodide."""
    (pyodide,) = (site / "assets" / "pyodide").iterdir()
    floor = site / "_floor"
    floor.mkdir()
    for name in ("index.html", "floor.js"):
        shutil.copy(HERE / "floor" / name, floor / name)
    worker = (HERE / "floor" / "worker.js").read_text().replace("PYODIDE_DIR", f"../assets/pyodide/{pyodide.name}")
    (floor / "worker.js").write_text(worker)


def _add_plain_page(site: Path) -> None:
    """A copy of the lab page without its terminal, at the same depth, for paint timing."""
    html = (site / LAB_PAGE / "index.html").read_text()
    html = re.sub(r'<section class="mdx-terminal".*?</section>', "", html, flags=re.S)
    html = re.sub(r'<script[^>]*terminal/[^>]*>.*?</script>', "", html, flags=re.S)
    plain = site / (LAB_PAGE.rstrip("/") + "-plain")
    plain.mkdir()
    (plain / "index.html").write_text(html)


def _first_command_ms(page: Page, url: str) -> float:
    """Navigation start → the output of ``help`` on screen, in the page's own clock."""
    page.goto(url, wait_until="commit", timeout=LOAD_LIMIT_MS)
    page.wait_for_selector(f"{TERMINAL}[data-mdx-state]", timeout=LOAD_LIMIT_MS)  # mounted: typing is queued from here on
    page.fill(INPUT, "help")
    page.press(INPUT, "Enter")
    return float(page.wait_for_function(
        "([sel, mark]) => { const o = document.querySelector(sel);"
        " return o && o.textContent.includes(mark) ? performance.now() : null; }",
        arg=[OUTPUT, HELP_MARK], timeout=LOAD_LIMIT_MS, polling=10).json_value())


#: The page's start-up marks (client.js, loader.js, session.js), in the order the stages end on a first visit.
STAGES = ("worker-created", "mounted", "manifest", "wheel", "pyodide", "wheel-mounted", "imported", "session-open")


def _stage_marks(page: Page) -> dict[str, float]:
    """Each start-up stage's ``mdx:`` performance mark, in ms since navigation start."""
    marks = page.evaluate("() => Object.fromEntries(performance.getEntriesByType('mark')"
                          ".filter(m => m.name.startsWith('mdx:')).map(m => [m.name.slice(4), m.startTime]))")
    return {stage: float(marks[stage]) for stage in STAGES if stage in marks}


def _throttle(page: Page) -> None:
    """Chromium's network emulation on this page (its workers' requests included): THROTTLE."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": THROTTLE["latency_ms"],
        "downloadThroughput": THROTTLE["mbit_s"] * 1e6 / 8, "uploadThroughput": THROTTLE["mbit_s"] * 1e6 / 8})


def _forget_sessions(page: Page, url: str) -> None:
    """Empty the site's storage (saved sessions and scrollback) but keep the HTTP cache."""
    page.goto(url + "_floor/", wait_until="commit")
    page.evaluate("() => localStorage.clear()")


def _floor_ms(page: Page, url: str) -> float:
    page.goto(url, wait_until="commit")
    return float(page.wait_for_function("() => window.floorReadyAt || null", timeout=LOAD_LIMIT_MS,
                                        polling=10).json_value())


def _fcp_ms(page: Page, url: str) -> float:
    page.goto(url, wait_until="load")
    return float(page.evaluate(
        "() => new Promise(done => new PerformanceObserver((list, obs) => {"
        " const e = list.getEntriesByName('first-contentful-paint')[0]; if (e) { obs.disconnect(); done(e.startTime); }"
        " }).observe({type: 'paint', buffered: true}))"))


def _navigation_ms(page: Page) -> dict[str, float]:
    """Click an in-site link and type ``help`` into the next page's terminal as soon as its command line
    exists: the times from the click until the line was typed (``typed``), the next page's session was
    open (``open``) and the output of ``help`` was on screen (``output``), in ms of the page's clock.

    Material pushes the new address as soon as the link is clicked, while the
    old page and its terminal are still there: only a terminal element other
    than the old one counts. The line goes in with the first DOM change that
    shows the new command line, mounted or not (prestart.js keeps a line
    entered before the terminal mounts)."""
    link = f'a.md-nav__link[href$="{OTHER_PAGE.split("/")[-2]}/"]'
    try:
        return dict(page.evaluate(
            "([link, path, sel, line, mark, limit]) => new Promise((done, fail) => {"
            " const old = document.querySelector(sel); let typed = null; const at = {}; const start = performance.now();"
            " const check = () => { const t = document.querySelector(sel); const now = performance.now() - start;"
            "   if (!at.address && location.pathname.endsWith(path)) at.address = now;"
            "   if (!at.dom && t && t !== old) at.dom = now;"
            "   if (typed && !at.mounted && typed.dataset.mdxState) at.mounted = now;"
            "   if (!typed && t && t !== old && location.pathname.endsWith(path)) {"
            "     const input = t.querySelector('[data-mdx-input]'); if (!input) return false;"
            "     typed = t; at.typed = performance.now() - start; input.value = line;"
            "     input.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true, cancelable: true})); }"
            "   if (typed && !at.open && typed.dataset.mdxOpen === 'true') at.open = performance.now() - start;"
            "   const out = typed && typed.querySelector('[data-mdx-output]');"
            "   return Boolean(out && out.textContent.includes(mark)); };"
            " const observer = new MutationObserver(() => { if (check()) { observer.disconnect();"
            "   done({...at, output: performance.now() - start}); } });"
            " observer.observe(document, {childList: true, subtree: true, characterData: true});"
            " observer.observe(document.documentElement, {attributes: true, subtree: true});"
            " setTimeout(() => { observer.disconnect(); fail(new Error('no output after the click')); }, limit);"
            " document.querySelector(link).click(); })",
            [link, "/" + OTHER_PAGE, TERMINAL, "help", HELP_MARK, COMMAND_LIMIT_MS]))
    except Exception as error:
        raise RuntimeError(f"in-site navigation did not reach the next page's first output: {error}") from error


#: The ``mdx:`` marks of a navigation, from the click: main.js marks the click and the next page's mount,
#: session.js the session ready, client.js the worker's TRACE (each request received, begun and ended).
NAVIGATION_MARKS = ("mount", "worker-prepare-received", "worker-prepare-end", "worker-open-received",
                    "worker-open-end", "session-ready", "worker-run-received")


def _navigation_marks(page: Page) -> dict[str, float]:
    """The last navigation's ``mdx:`` marks (NAVIGATION_MARKS), in ms after its click (the first of each)."""
    marks = page.evaluate("() => performance.getEntriesByType('mark').filter(m => m.name.startsWith('mdx:'))"
                          ".map(m => [m.name.slice(4), m.startTime])")
    clicks = [at for name, at in marks if name == "click"]
    if not clicks:
        return {}
    click = max(clicks)
    after: dict[str, float] = {}
    for name, at in sorted(marks, key=lambda mark: mark[1]):
        if at >= click and name in NAVIGATION_MARKS:
            after.setdefault(name, at - click)
    return after


def _command_latencies(page: Page) -> dict[str, float]:
    """Enter → the command done, for each representative command, through the worker."""
    samples = {}
    for line in representative_commands():
        ms = float(page.evaluate(
            "([sel, line, limit]) => new Promise(done => {"
            " const t = document.querySelector(sel); const input = t.querySelector('[data-mdx-input]');"
            " const before = Number(t.dataset.mdxRuns || 0); const start = performance.now();"
            " const observer = new MutationObserver(() => { if (Number(t.dataset.mdxRuns || 0) > before) {"
            "   observer.disconnect(); done(performance.now() - start); } });"
            " observer.observe(t, {attributes: true});"
            " setTimeout(() => { observer.disconnect(); done(-1); }, limit);"
            " input.value = line; input.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));"
            "})", [TERMINAL, line, COMMAND_LIMIT_MS]))
        if ms < 0:
            state = page.evaluate(
                "(sel) => [...document.querySelectorAll(sel)].map(t => JSON.stringify(t.dataset) + ' status: '"
                " + (t.querySelector('[data-mdx-status]')?.textContent ?? ''))", TERMINAL)
            raise RuntimeError(f"{line!r} did not finish within {COMMAND_LIMIT_MS} ms; terminals on the page: {state};"
                               " the first one shows:\n" + (page.text_content(OUTPUT) or "")[-2000:])
        samples[line] = ms
    return samples


class _Bytes:
    def __init__(self, page: Page) -> None:
        self.total = 0
        page.on("requestfinished", self._add)

    def _add(self, request) -> None:  # type: ignore[no-untyped-def]
        sizes = request.sizes()
        self.total += sizes["responseBodySize"] + sizes["responseHeadersSize"]


@contextlib.contextmanager
def _served_site(plain_page: bool = False) -> Iterator[tuple[str, Path]]:
    """Build the site with the floor page (and the plain page) into a temporary folder and serve it:
    (its address, the temporary folder)."""
    server = SiteServer()
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        built = build_site(site, server.url)
        if built.returncode != 0:
            raise RuntimeError(f"mkdocs build failed:\n{built.stdout}{built.stderr}")
        _add_floor(site)
        if plain_page:
            _add_plain_page(site)
        server.serve(site)
        try:
            yield server.url, Path(tmp)
        finally:
            server.close()


def browser_figures() -> list[Row]:
    with _served_site(plain_page=True) as (url, tmp):
        return _measure(url, tmp)


def _measure(url: str, tmp: Path) -> list[Row]:
    rows: list[Row] = []
    with sync_playwright() as p:
        def profile(name: str):  # type: ignore[no-untyped-def]
            ctx = p.chromium.launch_persistent_context(str(tmp / name), executable_path=CHROMIUM, args=FLAGS,
                                                       headless=True)
            ctx.set_default_timeout(LOAD_LIMIT_MS)
            settle(tmp / name)  # Chromium's own start-up work is done before the timed load begins
            return ctx

        floor_ctx = profile("floor")
        floor_page = floor_ctx.new_page()
        floor_visit = _Bytes(floor_page)
        floor_cold = _floor_ms(floor_page, url + "_floor/")
        floor_bytes = floor_visit.total
        floor_warm = _floor_ms(floor_ctx.new_page(), url + "_floor/")
        floor_ctx.close()
        floor_ctx = profile("floor-throttled")
        floor_page = floor_ctx.new_page()
        _throttle(floor_page)
        floor_throttled = _floor_ms(floor_page, url + "_floor/")
        floor_ctx.close()
        site_ctx = profile("site-throttled")
        page = site_ctx.new_page()
        _throttle(page)
        throttled = _first_command_ms(page, url + LAB_PAGE)
        site_ctx.close()

        site_ctx = profile("site")
        page = site_ctx.new_page()
        first_visit = _Bytes(page)
        cold = _first_command_ms(page, url + LAB_PAGE)
        stages = _stage_marks(page)
        first_bytes = first_visit.total
        page.close()
        page2 = site_ctx.new_page()
        _forget_sessions(page2, url)
        warm = _first_command_ms(page2, url + LAB_PAGE + "?snapshot=off")
        later = _Bytes(page2)
        navigation = _navigation_ms(page2)
        navigation_marks = _navigation_marks(page2)
        latencies = _command_latencies(page2)
        paced = paced_commands()
        unpaced = [ms for line, ms in latencies.items() if line not in paced]
        slowest = max((line for line in latencies if line not in paced), key=latencies.__getitem__)
        print(f"slowest unpaced command in the browser: {slowest} ({latencies[slowest]:.1f} ms)")
        page2.close()
        # Each paint on a tab of its own, closed afterwards: a lab page's runtime starts from <head> and would
        # otherwise go on booting beside the next load. The lab page and the plain page alternate, and the
        # figure is the median of each pair's ratio: one paint varies by a factor of two on a shared machine.
        pairs = [(_in_new_tab(site_ctx, lambda tab: _fcp_ms(tab, url + LAB_PAGE)),
                  _in_new_tab(site_ctx, lambda tab: _fcp_ms(tab, url + LAB_PAGE.rstrip("/") + "-plain/")))
                 for _ in range(PAINT_PAIRS)]
        fcp_lab = statistics.median(lab for lab, _ in pairs)
        fcp_ratio = statistics.median(lab / plain for lab, plain in pairs)
        site_ctx.close()

    link = f"{THROTTLE['mbit_s']} Mbit/s {THROTTLE['latency_ms']} ms"
    rows += [
        ("floor page cold: worker start to first line", floor_cold, "ms", None, ""),
        ("floor page warm", floor_warm, "ms", None, ""),
        ("cold time to first command (help)", cold, "ms", None, ""),
        ("cold time to first command / floor cold", cold / floor_cold, "x", 1.10, "max"),
        *((f"cold stage ends: {stage}", at, "ms", None, "") for stage, at in stages.items()),
        ("warm time to first command", warm, "ms", None, ""),
        ("warm time to first command / floor warm", warm / floor_warm, "x", None, ""),
        (f"floor page cold at {link}", floor_throttled, "ms", None, ""),
        (f"cold time to first command at {link}", throttled, "ms", None, ""),
        (f"cold at {link} / floor cold at {link}", throttled / floor_throttled, "x", 1.10, "max"),
        ("in-site navigation: click to next page's first output", navigation["output"] / 1000.0, "s", 0.2, "max"),
        ("in-site navigation: click to the command line typed into", navigation["typed"], "ms", None, ""),
        ("in-site navigation: click to the session open", navigation.get("open", navigation["output"]), "ms", None, ""),
        *((f"in-site navigation stage: {stage}", at, "ms", None, "") for stage, at in navigation_marks.items()),
        ("first contentful paint, lab page", fcp_lab, "ms", None, ""),
        ("first contentful paint, lab / plain page", fcp_ratio, "x", 1.05, "max"),
        ("browser command p50", percentile(unpaced, 0.5), "ms", None, ""),
        ("browser command p95", percentile(unpaced, 0.95), "ms", 30.0, "max"),
        ("browser slowest unpaced command", latencies[slowest], "ms", None, ""),
        ("bytes, first visit", first_bytes / 1e6, "MB", None, ""),
        ("bytes, floor page first visit", floor_bytes / 1e6, "MB", None, ""),
        ("bytes, first visit / floor page", first_bytes / floor_bytes, "x", 1.05, "max"),
        ("bytes, each further page", later.total / 1e6, "MB", None, ""),
    ]
    return rows


# -- Repeat visits started from the browser's own memory snapshot (README, "Snapshots") ----------------------------

SNAPSHOT_STORED = f'{TERMINAL}[data-mdx-snapshot="stored"]'
#: Each repeat visit starts once the open page has finished its own background work (storing the
#: snapshot, unpacking the wheel, building the search index), as a reader's later visit would.
SETTLE_MS = 2000
#: Rounds of (floor page warm, full reload, new tab). The floor's warm load varies by ±20 % from one load
#: to the next on a shared machine: each visit is divided by the floor load just before it, and the
#: figures are medians over the rounds.
SNAPSHOT_ROUNDS = 3


def _repeat_first_command_ms(page: Page, reload: bool, url: str) -> float:
    """Navigation start → ``help`` done, on a page whose saved scrollback may already show ``help``."""
    if reload:
        page.reload(wait_until="commit")
    else:
        page.goto(url, wait_until="commit")
    page.wait_for_selector(f"{TERMINAL}[data-mdx-state]")
    page.fill(INPUT, "help")
    page.press(INPUT, "Enter")
    done = float(page.wait_for_function(
        "(sel) => Number(document.querySelector(sel).dataset.mdxRuns || 0) >= 1 ? performance.now() : null",
        arg=TERMINAL, timeout=60000, polling=10).json_value())
    started = page.get_attribute(TERMINAL, "data-mdx-runtime")
    if started != "snapshot":
        raise RuntimeError(f"the repeat visit did not start from the snapshot (data-mdx-runtime={started})")
    return done


def _in_new_tab(ctx: BrowserContext, measure: Callable[[Page], float]) -> float:
    """``measure`` on a tab of its own, closed afterwards so that its runtime does not linger."""
    tab = ctx.new_page()
    tab.set_default_timeout(60000)
    try:
        return measure(tab)
    finally:
        tab.close()


def snapshot_figures() -> list[Row]:
    """A full reload and a new tab after the first visit stored its snapshot, each against the floor page warm.

    Every load starts SETTLE_MS after the page before it went quiet; each round loads the floor page
    warm, then reloads the lab page, then opens it in a new tab."""
    floors, reloads, tabs = [], [], []
    with _served_site() as (url, tmp), sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(str(tmp / "profile"), executable_path=CHROMIUM, args=FLAGS,
                                                   headless=True)
        _in_new_tab(ctx, lambda tab: _floor_ms(tab, url + "_floor/"))  # cold: fills the caches
        page = ctx.new_page()
        page.set_default_timeout(60000)
        _first_command_ms(page, url + LAB_PAGE)
        page.wait_for_selector(SNAPSHOT_STORED, timeout=180000)
        for _ in range(SNAPSHOT_ROUNDS):
            page.wait_for_timeout(SETTLE_MS)
            floors.append(_in_new_tab(ctx, lambda tab: _floor_ms(tab, url + "_floor/")))
            page.wait_for_timeout(SETTLE_MS)
            reloads.append(_repeat_first_command_ms(page, True, url + LAB_PAGE))
            page.wait_for_timeout(SETTLE_MS)
            tabs.append(_in_new_tab(ctx, lambda tab: _repeat_first_command_ms(tab, False, url + LAB_PAGE)))
        ctx.close()
    median = statistics.median
    return [
        ("snapshot: floor page warm", median(floors), "ms", None, ""),
        ("snapshot: full reload, time to first command", median(reloads), "ms", None, ""),
        ("snapshot: full reload / floor warm", median(r / f for r, f in zip(reloads, floors, strict=True)),
         "x", 0.3, "max"),
        ("snapshot: new tab, time to first command", median(tabs), "ms", None, ""),
        ("snapshot: new tab / floor warm", median(t / f for t, f in zip(tabs, floors, strict=True)), "x", 0.3, "max"),
    ]
