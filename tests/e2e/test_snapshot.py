"""Start-up from a memory snapshot the browser made itself, and every way back to a normal load.

The first load of a visit boots Pyodide normally and, once the terminal is
idle, stores a snapshot in the origin private file system; later loads start
the worker from the page's <head> and restore it (``data-mdx-runtime``). A
damaged, foreign or stale snapshot is never used: the terminal loads normally
and the learner's lab state and history are still there.
"""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from hashlib import sha256
from pathlib import Path

from .site import SiteServer
from .terminal import INPUT, OUTPUT, TERMINAL, run, wait_ready

LAB_PAGE = "guides/training-step/"
FOLDER = "mdx-runtime-snapshot-v2"
STORE_TIMEOUT = 120000


def runtime_of(page) -> str | None:
    return page.get_attribute(TERMINAL, "data-mdx-runtime")


def first_visit(page, url: str) -> None:
    """Open the lab page, change the session's state, wait until the snapshot is stored."""
    page.goto(url + LAB_PAGE)
    page.click(INPUT)
    wait_ready(page)
    assert runtime_of(page) == "fresh"
    run(page, "cd /tmp")
    run(page, "export COLOR=teal")
    page.wait_for_selector(f'{TERMINAL}[data-mdx-snapshot="stored"]', timeout=STORE_TIMEOUT)


def reload(page, query: str = "") -> None:
    page.goto(page.url.split("?")[0] + query)
    page.click(INPUT)
    wait_ready(page)


def assert_state_survived(page) -> None:
    assert run(page, "pwd").endswith("/tmp\n")
    assert run(page, "echo $COLOR").endswith("teal\n")
    page.press(INPUT, "ArrowUp")
    assert page.input_value(INPUT) == "echo $COLOR"
    page.fill(INPUT, "")


def stored_keys(page) -> list[str]:
    """The keys of the snapshot files in the site's private file system (names without digest and suffix)."""
    names = page.evaluate(
        """async (name) => {
          const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle(name);
          const names = [];
          for await (const handle of dir.values()) names.push(handle.name);
          return names;
        }""",
        FOLDER,
    )
    return [re.sub(r"(\.[0-9a-f]{64}\.heap|\.skip)$", "", name) for name in names]


def damage(page, how: str) -> None:
    """Rewrite the stored snapshot: flip heap bytes (checksum left stale) or change its build id (checksum fixed up)."""
    page.evaluate(
        r"""async ([name, how]) => {
          const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle(name);
          let file;
          for await (const handle of dir.values()) file = handle;
          const bytes = new Uint8Array(await (await file.getFile()).arrayBuffer());
          let target = file.name;
          if (how === "heap") {
            for (let i = 0; i < 4096; i++) bytes[bytes.length / 2 + i] ^= 0xff;
          } else {
            bytes[20] ^= 0xff;  // inside the build id: Pyodide refuses to restore it
            const { checksum } = await import(new URL("/assets/javascripts/terminal/snapshot.js", location.href).href);
            target = file.name.replace(/[0-9a-f]{64}\.heap$/, `${checksum(bytes)}.heap`);
            await dir.removeEntry(file.name);
          }
          const writable = await (await dir.getFileHandle(target, { create: true })).createWritable();
          await writable.write(bytes);
          await writable.close();
        }""",
        [FOLDER, how],
    )


def adopted_prestarted_worker(page) -> bool:
    """Whether the terminal runs on the worker prestart.js started from <head> (it leaves mdxPrestarted null once
    client.js has taken that worker; undefined when it started none)."""
    return page.evaluate("() => window.mdxPrestarted === null")


def test_the_second_load_restores_from_the_snapshot_with_state_and_history(page, site):
    first_visit(page, site.url)
    (key,) = stored_keys(page)
    # The key prestart.js hands the worker, which restores before the manifest confirms it.
    assert page.evaluate("localStorage.getItem('mdx-terminal:snapshot-held')") == key
    reload(page)
    assert runtime_of(page) == "snapshot"
    assert adopted_prestarted_worker(page)
    assert page.evaluate("performance.getEntriesByType('resource').some(e => e.name.includes('worker.js?')"
                         f" && e.name.includes('held={key}'))"), "the worker was started with the held key"
    assert_state_survived(page)
    assert run(page, "hostname").endswith("login01\n")


def test_snapshots_turned_off_by_the_address_load_normally(page, site):
    first_visit(page, site.url)
    reload(page, "?snapshot=off")
    assert runtime_of(page) == "fresh"
    assert not adopted_prestarted_worker(page)
    assert_state_survived(page)


def test_a_damaged_snapshot_falls_back_to_a_normal_load_and_still_runs_commands(page, site):
    first_visit(page, site.url)
    damage(page, "heap")
    reload(page)
    assert runtime_of(page) == "fresh"
    assert "damaged" in page.text_content(OUTPUT)
    assert_state_survived(page)
    # The damaged copy was dropped and a good one is made again.
    page.wait_for_selector(f'{TERMINAL}[data-mdx-snapshot="stored"]', timeout=STORE_TIMEOUT)
    reload(page)
    assert runtime_of(page) == "snapshot"


def test_a_snapshot_that_fails_to_restore_is_dropped_and_not_tried_again(page, site):
    first_visit(page, site.url)
    damage(page, "build-id")
    reload(page)
    assert runtime_of(page) == "fresh"
    assert "could not be used" in page.text_content(OUTPUT)
    assert_state_survived(page)
    reload(page)
    assert runtime_of(page) == "fresh"
    assert run(page, "hostname").endswith("login01\n")


def _new_wheel(folder: Path) -> None:
    """Deploy another wheel: same modules, another archive comment, so another sha256."""
    manifest_path = folder / "assets" / "emulator" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    old = manifest_path.parent / manifest["wheel"]
    data = old.read_bytes()
    new_dir = manifest_path.parent / "redeployed"
    new_dir.mkdir()
    new = new_dir / old.name
    new.write_bytes(data)
    with zipfile.ZipFile(new, "a") as archive:
        archive.comment = b"redeployed"
    manifest["wheel"] = f"redeployed/{old.name}"
    manifest["sha256"] = sha256(new.read_bytes()).hexdigest()
    manifest_path.write_text(json.dumps(manifest))


def test_a_new_wheel_invalidates_the_snapshot(page, site, tmp_path):
    copy = tmp_path / "site"
    shutil.copytree(site.folder, copy)
    server = SiteServer()
    server.serve(copy)
    try:
        first_visit(page, server.url)
        (old_key,) = stored_keys(page)
        _new_wheel(copy)
        reload(page)
        assert runtime_of(page) == "fresh"
        assert_state_survived(page)
        page.wait_for_selector(f'{TERMINAL}[data-mdx-snapshot="stored"]', timeout=STORE_TIMEOUT)
        (new_key,) = stored_keys(page)
        assert new_key != old_key
        reload(page)
        assert runtime_of(page) == "snapshot"
    finally:
        server.close()


def search_finds(page, words: str) -> list[str]:
    """Open Material's search, type `words`, and return the titles of the results it lists."""
    page.click("[data-md-component=search-query]")  # the header's search box, at this viewport's width
    page.keyboard.type(words)
    page.wait_for_selector(".md-search-result__item", timeout=15000)
    return page.locator(".md-search-result__item h1").all_text_contents()


def test_search_still_answers_on_a_page_started_from_the_snapshot(page, site):
    """On such a load the search index waits for the terminal (prestart.js); it must still be built."""
    first_visit(page, site.url)
    reload(page)
    assert runtime_of(page) == "snapshot"
    assert any("NCCL" in title for title in search_finds(page, "NCCL"))


def test_search_asked_for_before_the_terminal_is_ready_still_answers(page, site):
    first_visit(page, site.url)
    page.goto(page.url)
    assert any("NCCL" in title for title in search_finds(page, "NCCL"))
    wait_ready(page)
    assert runtime_of(page) == "snapshot"


def reference_checksum(data: bytes) -> str:
    """The snapshot checksum as checksum.js defines it: four interleaved Fletcher sums of 32-bit words."""
    words = [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data) - len(data) % 4, 4)]
    a, b = [0] * 4, [0] * 4
    whole = len(words) - len(words) % 4
    for at, word in enumerate(words):
        lane = at % 4 if at < whole else 0
        a[lane] = (a[lane] + word) % 2**32
        b[lane] = (b[lane] + a[lane]) % 2**32
    return "".join(f"{x:08x}" for x in a + b)


def pattern(size: int) -> bytes:
    return bytes(((i * 2654435761) % 2**32 >> 13) & 255 for i in range(size))


def test_the_snapshot_checksum_is_the_same_summed_in_webassembly_or_in_javascript(page, site):
    sizes = [0, 3, 4, 17, 64, 70001, 1 << 20]
    page.goto(site.url)
    results = page.evaluate(
        """async (sizes) => {
          const { allocate, checksum } = await import(new URL("assets/javascripts/terminal/checksum.js", location.href).href);
          return sizes.map((size) => {
            const inPlace = allocate(size);
            const plain = new Uint8Array(size);
            for (let i = 0; i < size; i++) inPlace[i] = plain[i] = (Math.imul(i, 2654435761) >>> 13) & 255;
            return { inPlace: checksum(inPlace), plain: checksum(plain),
                     wasm: inPlace.buffer !== plain.buffer && inPlace.buffer.byteLength % 65536 === 0 };
          });
        }""",
        sizes,
    )
    for size, result in zip(sizes, results, strict=True):
        assert result["wasm"], "allocate() should give bytes in a WebAssembly memory where SIMD is available"
        assert result["inPlace"] == result["plain"] == reference_checksum(pattern(size)), size
