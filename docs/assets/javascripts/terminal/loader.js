/**
 * Loads the emulator worker's runtime: Pyodide from the site, with the
 * standard library the build compiled (the manifest's `stdlib`), then the
 * emulator wheel named by the manifest, checked against its sha256, and
 * imports `emulator.web` straight from the wheel (`emulator.wheelimport`).
 * PROGRESS reports the bytes as they arrive.
 *
 * Start-up from a memory snapshot (snapshot.js): when this browser holds a
 * snapshot for this deploy, Pyodide is restored from it instead of booting,
 * the wheel is unpacked again (files are not in the snapshot) and `random` is
 * reseeded. Any failure drops that instance and loads normally. After a
 * normal load, background.js has maker.js make the snapshot. LOADED tells the
 * page which path ran.
 */

import { Msg, Stage } from "./protocol.js";
import * as snapshots from "./snapshot.js";
import { describe, post } from "./port.js";
import { makeWhenQuiet, unpackWhenQuiet } from "./background.js";

const MANIFEST_URL = new URL("../../emulator/manifest.json", import.meta.url);
/** The site's root, which the manifest's `pages` are relative to. */
const SITE_ROOT = new URL("../../../", import.meta.url).pathname;

/** The manifest's `pages` ({"guides/x/": [lab, seed]}) once it has been read. */
let pages = {};

/** [lab, seed] of the site page at the URL path `path`, or null (a page of the sandbox, or not the site's). */
export function labOfPage(path) {
  if (typeof path !== "string" || !path.startsWith(SITE_ROOT)) return null;
  const page = path.slice(SITE_ROOT.length).replace(/index\.html$/, "");
  return Object.hasOwn(pages, page) ? pages[page] : null;
}

/** Bytes seen so far of the runtime files, for PROGRESS. */
const bytes = { loaded: 0, total: 0, stage: Stage.MANIFEST };

let tracking = 0;

function progress(stage) {
  bytes.stage = stage;
  post({ type: Msg.PROGRESS, stage, loaded: bytes.loaded, total: bytes.total });
}

/**
 * fetch that reports the bytes of big downloads as they arrive. It counts a
 * clone of the body and hands back the original response untouched: Chromium
 * caches compiled WebAssembly by the response's URL, which a rebuilt Response
 * would lose (every warm load would compile the runtime again).
 */
const plainFetch = self.fetch.bind(self);
async function countingFetch(input, init) {
  const response = await plainFetch(input, init);
  const path = new URL(String(input instanceof Request ? input.url : input)).pathname;
  if (!/\.(wasm|zip|whl)$/.test(path)) return response;
  if (!response.ok) {
    // Pyodide waits forever on a missing runtime file: report it at once.
    post({ type: Msg.FATAL, message: `${path.split("/").pop()} could not be fetched (HTTP ${response.status})` });
    return response;
  }
  if (!response.body || bytes.stage === Stage.RESTORING) return response; // a restore needs no byte count
  bytes.total += Number(response.headers.get("content-length")) || 0;
  tracking += 1;
  countBytes(response.clone().body);
  return response;
}

async function countBytes(body) {
  const reader = body.getReader();
  let last = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes.loaded += value.byteLength;
      if (bytes.loaded - last > 262144) {
        last = bytes.loaded;
        progress(bytes.stage);
      }
    }
  } finally {
    tracking -= 1;
    if (tracking === 0 && bytes.stage === Stage.RUNTIME) progress(Stage.STARTING);
  }
}

async function fetchOk(url, what, fetcher = countingFetch) {
  const response = await fetcher(url, { cache: "no-cache" });
  if (!response.ok) {
    throw new Error(`${what} could not be fetched (HTTP ${response.status} for ${new URL(url).pathname})`);
  }
  return response;
}

/**
 * The wheel named by the manifest, checked against its sha256. It downloads
 * while Pyodide does, so its bytes stay out of the runtime's progress count.
 */
async function fetchWheel(manifest) {
  const url = new URL(manifest.wheel, MANIFEST_URL);
  const wheel = await (await fetchOk(url, "The emulator package", plainFetch)).arrayBuffer();
  if ((await snapshots.sha256Hex(wheel)) !== manifest.sha256) {
    throw new Error("the emulator package does not match its manifest (a stale cache?)");
  }
  reached("wheel");
  return wheel;
}

/** Where the wheel is written for mount(). */
const WHEEL_FILE = "/tmp/emulator.whl";

/**
 * Import the emulator from the wheel as one file, without unpacking it (emulator/wheelimport.py): on the way
 * to a first visit's first command. The worker loads that module itself through zipimport.
 */
function mount(pyodide, wheel) {
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  pyodide.FS.writeFile(WHEEL_FILE, new Uint8Array(wheel));
  pyodide.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(WHEEL_FILE)})`);
  const wheelimport = pyodide.pyimport("emulator.wheelimport");
  try {
    wheelimport.mount(WHEEL_FILE, sitePackages);
  } finally {
    wheelimport.destroy();
  }
}

/** Unpack the wheel into site-packages (files are not part of a snapshot, so after a restore). */
function install(pyodide, wheel) {
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  pyodide.unpackArchive(wheel, "wheel", { extractDir: sitePackages });
  pyodide.runPython("import importlib; importlib.invalidate_caches()");
}

const quiet = { stdout: () => {}, stderr: () => {} };

/** When each stage of the start-up ended, in milliseconds since the epoch (the page's clock differs): for LOADED. */
const stages = {};
function reached(stage) {
  stages[stage] = performance.timeOrigin + performance.now();
}

/** Raised when a stored snapshot's bytes do not match their checksum. */
class Damaged extends Error {}

/**
 * A Pyodide restored from `found` with the emulator usable, or an exception (the instance is dropped).
 * `compiled` is pyodide.asm.wasm, compiling since the snapshot was found; `early` is what the worker
 * began downloading on its first line.
 *
 * The snapshot holds every emulator module and the parsed labs, so the first
 * commands read no file; the wheel's files are unpacked again once the
 * terminal is idle (background.js); only then is the wheel downloaded.
 */
async function restore(loadPyodide, indexURL, stdLibURL, found, compiled, wheel, early) {
  // A damaged heap is never restored; the module compiles meanwhile, on other threads.
  if (!snapshots.intact(found)) throw new Damaged("the stored snapshot is damaged");
  const undo = snapshots.prepareInstantiation(found.bytes, compiled);
  // Pyodide fetches pyodide.asm.wasm itself too: it gets a stand-in, since `compiled` is used.
  // The files the worker began downloading when it started are handed over, once each.
  const fetching = self.fetch;
  self.fetch = (input, init) => {
    const url = String(input);
    if (url.endsWith("/pyodide.asm.wasm")) return Promise.resolve(new Response(null));
    const downloaded = early?.downloads.get(url);
    early?.downloads.delete(url);
    return downloaded ?? fetching(input, init);
  };
  let pyodide;
  try {
    pyodide = await loadPyodide({ indexURL, stdLibURL, _loadSnapshot: found.bytes, ...quiet });
  } finally {
    self.fetch = fetching;
    undo();
  }
  // Every restore starts from the same random state: reseed from the browser's entropy
  // (a call, not runPython, which would compile source on the way to the first command).
  const random = pyodide.pyimport("random");
  random.seed();
  random.destroy();
  const module = pyodide.pyimport("emulator.web");
  if (module.incomplete("for x in a; do") !== "true" || module.incomplete("echo ok") !== "false") {
    throw new Error("the restored emulator does not answer as it should");
  }
  unpackWhenQuiet(() => wheel().then((bytes) => install(pyodide, bytes)).catch(() => {}));
  return module;
}

/**
 * Pyodide booted from the folder and with the standard library prestart.js named, before the manifest
 * confirms them (`early.script` loads).
 */
function bootEarly(early) {
  self.fetch = countingFetch;
  const booting = early.painted.then(() => early.script).then(({ loadPyodide }) =>
    loadPyodide({ indexURL: early.folder, stdLibURL: early.stdlib, ...quiet }));
  booting.catch(() => {}); // awaited below when the manifest names this folder, which reports a failure
  return booting;
}

/** The manifest, from the download worker.js began (`early.manifest`) or a new one. */
async function readManifest(early) {
  const response = early?.manifest ? await early.manifest : await fetchOk(MANIFEST_URL, "The runtime manifest");
  if (!response.ok) {
    throw new Error(`The runtime manifest could not be fetched (HTTP ${response.status} for ${MANIFEST_URL.pathname})`);
  }
  return response.json();
}

/**
 * The restore begun before the manifest arrives, when prestart.js named the key of the snapshot this
 * browser holds (`early.heldKey`): {found, module} or {found, error}, or {found} when none is stored under
 * that key. loadRuntime uses it only if the manifest names the same key, Pyodide folder and standard library.
 */
async function restoreEarly(early, stored, wheel) {
  await early.painted;
  const found = await stored;
  if (!found.bytes) return { found };
  try {
    const { loadPyodide } = await import(new URL("pyodide.mjs", early.folder).href);
    self.fetch = countingFetch;
    progress(Stage.RESTORING);
    return { found, module: await restore(loadPyodide, early.folder, early.stdlib, found, early.compiled, wheel, early) };
  } catch (error) {
    return { found, error };
  }
}

/**
 * After a failed restore: the instance is dropped. A damaged copy is made again; one that fails to restore is
 * marked, so this browser does not try it again. The note for LOADED, or null.
 */
async function dropRestore(error, found, key) {
  found.missing = describe(error);
  if (error instanceof Damaged) {
    await snapshots.forget(key);
    found.damaged = true;
    return null;
  }
  await snapshots.skip(key, `restore failed: ${describe(error)}`);
  found.skip = true;
  return "The terminal's saved start-up copy could not be used, so it started normally.";
}

/**
 * The loaded `emulator.web`. `snapshotsWanted` is false when the worker's
 * address says `?snapshot=off`; `early` is what worker.js began downloading
 * on its first line, or null.
 */
export async function loadRuntime({ snapshotsWanted, early }) {
  const started = performance.now();
  stages.worker = performance.timeOrigin;
  progress(Stage.MANIFEST);
  // No snapshot held (worker.js): Pyodide boots from the page's hint at once, while the manifest is fetched.
  const booting = early?.script ? bootEarly(early) : null;
  const manifestPromise = readManifest(early);
  const keyPromise = manifestPromise.then((m) => snapshots.snapshotKey(m.pyodideVersion, m.sha256, m.stdlibSha256));
  keyPromise.catch(() => {}); // a failed manifest is reported just below
  // The stored snapshot is read while the manifest is fetched; the manifest then says whether it fits. With
  // the key prestart.js named, the restore itself begins at once too.
  const heldKey = snapshotsWanted && !booting ? early?.heldKey ?? null : null;
  const stored = booting ? Promise.resolve({ missing: "none held when the page started" })
    : snapshotsWanted ? Promise.resolve(early?.painted).then(() => snapshots.read(heldKey ?? keyPromise))
      : Promise.resolve({ missing: "turned off", skip: true });
  let wheelPromise = null;
  const wheel = () => (wheelPromise ??= manifestPromise.then(fetchWheel));
  const speculative = heldKey ? restoreEarly(early, stored, wheel) : null;
  const manifest = await manifestPromise;
  reached("manifest");
  pages = manifest.pages ?? {};
  const key = await keyPromise;
  const pyodideURL = new URL(manifest.pyodide, MANIFEST_URL);
  const stdLibURL = new URL(manifest.stdlib, MANIFEST_URL).href;
  if (!speculative) progress(Stage.RUNTIME);
  if (booting) wheel().catch(() => {}); // no snapshot to look for: it downloads now, beside Pyodide's boot
  const asm = import(new URL("pyodide.asm.mjs", pyodideURL).href); // loadPyodide imports it too: start it now
  asm.catch(() => {});
  const fits = manifest.snapshot !== false && key === heldKey && early?.folder === pyodideURL.href
    && early?.stdlib === stdLibURL;
  let found;
  let note = null;
  if (speculative) {
    const restored = await speculative;
    found = fits ? restored.found : { missing: "made for another deploy" };
    if (fits && restored.module) {
      reached("imported");
      post({ type: Msg.LOADED, runtime: "snapshot", key, note, stages, ms: Math.round(performance.now() - started) });
      return restored.module;
    }
    if (fits && restored.error) note = await dropRestore(restored.error, found, key);
    progress(Stage.RUNTIME);
  } else {
    found = manifest.snapshot === false ? { missing: "turned off for this site", skip: true } : await stored;
  }
  // Restoring: compile pyodide.asm.wasm (from Chromium's code cache, on a repeat visit) beside the script's loading.
  const wasmURL = new URL("pyodide.asm.wasm", pyodideURL).href;
  const compiled = !found.bytes || speculative ? null
    : early?.wasm === wasmURL ? early.compiled : WebAssembly.compileStreaming(plainFetch(wasmURL));
  compiled?.catch(() => {}); // awaited inside loadPyodide
  const { loadPyodide } = await import(new URL("pyodide.mjs", pyodideURL).href);
  self.fetch = countingFetch;
  if (compiled) {
    progress(Stage.RESTORING);
    try {
      const module = await restore(loadPyodide, pyodideURL.href, stdLibURL, found, compiled, wheel, early);
      reached("imported");
      post({ type: Msg.LOADED, runtime: "snapshot", key, note, stages, ms: Math.round(performance.now() - started) });
      return module;
    } catch (error) {
      note = await dropRestore(error, found, key);
      progress(Stage.RUNTIME);
    }
  }
  if (found.damaged) note = "The terminal's saved start-up copy was damaged, so it started normally.";
  wheel().catch(() => {}); // downloads beside Pyodide; awaited below, where a failure is reported
  const pyodide = booting && early.folder === pyodideURL.href && early.stdlib === stdLibURL ? await booting
    : await loadPyodide({ indexURL: pyodideURL.href, stdLibURL, ...quiet });
  reached("pyodide");
  progress(Stage.WHEEL);
  const bytes = await wheel();
  mount(pyodide, bytes);
  reached("wheel-mounted");
  progress(Stage.SESSION);
  const module = pyodide.pyimport("emulator.web");
  reached("imported");
  if (!found.skip) makeWhenQuiet({ indexURL: pyodideURL.href, stdLibURL, wheel: bytes.slice(0), key });
  post({ type: Msg.LOADED, runtime: "fresh", key, note, reason: found.missing ?? null, stages,
         ms: Math.round(performance.now() - started) });
  return module;
}
