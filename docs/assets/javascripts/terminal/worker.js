/**
 * The emulator worker: owns Pyodide and every emulator session of the visit.
 *
 * It loads the runtime as soon as it starts (Pyodide from the site, then the
 * emulator wheel named by the manifest, checked against its sha256), imports
 * `emulator.web` and answers the messages of protocol.js.
 *
 * Start-up from a memory snapshot (snapshot.js): when this browser holds a
 * snapshot for this deploy, Pyodide is restored from it instead of booting,
 * the wheel is unpacked again (files are not in the snapshot) and `random` is
 * reseeded. Any failure drops that instance and loads normally. After a
 * normal load, once the terminal has been idle, maker.js makes the snapshot
 * in a worker of its own. LOADED tells the page which path ran.
 * `?snapshot=off` on this worker's address turns all of it off.
 *
 * A RUN is driven
 * chunk by chunk: `step` until done, posting each chunk, sleeping between
 * chunks with setTimeout so an INTERRUPT is handled in between (no
 * SharedArrayBuffer needed).
 */

import { Msg, Stage, MAX_PAUSE_MS } from "./protocol.js";
import * as snapshots from "./snapshot.js";
import "./checksum.js"; // snapshot.js's own import, named here so that it downloads beside snapshot.js, not after it

const MANIFEST_URL = new URL("../../emulator/manifest.json", import.meta.url);
const SNAPSHOTS_WANTED = new URL(import.meta.url).searchParams.get("snapshot") !== "off";
/**
 * prestart.js names the Pyodide folder of the page's build (`?pyodide=`) when it starts this worker for a
 * restore: compiling pyodide.asm.wasm, loading its script and downloading the files Pyodide reads while
 * it starts (the standard library and the lock file) begin at once. They are used only if the manifest
 * names the same folder.
 */
const EARLY = (() => {
  const hint = new URL(import.meta.url).searchParams.get("pyodide");
  if (!hint || !SNAPSHOTS_WANTED) return null;
  const folder = new URL(hint, self.location.href);
  if (folder.origin !== self.location.origin) return null;
  const wasm = new URL("pyodide.asm.wasm", folder).href;
  const compiled = WebAssembly.compileStreaming(self.fetch(wasm));
  compiled.catch(() => {});
  import(new URL("pyodide.asm.mjs", folder).href).catch(() => {});
  const downloads = new Map();
  for (const name of ["python_stdlib.zip", "pyodide-lock.json"]) {
    const url = new URL(name, folder).href;
    const response = self.fetch(url);
    response.catch(() => {});
    downloads.set(url, response);
  }
  return { wasm, compiled, downloads };
})();
/** How long the terminal must be idle after a normal load before the snapshot is made. */
const MAKE_AFTER_IDLE_MS = 3000;
/** How long after the session opened, with no command yet, the wheel is unpacked again after a restore. */
const UNPACK_AFTER_IDLE_MS = 1000;

/** Bytes seen so far of the runtime files, for PROGRESS. */
const bytes = { loaded: 0, total: 0, stage: Stage.MANIFEST };

let tracking = 0;
let web = null;
let loading = null;

function post(message) {
  self.postMessage(message);
}

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
  return wheel;
}

/** Unpack the wheel into site-packages (files are not part of a snapshot, so after a restore too). */
function install(pyodide, wheel) {
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  pyodide.unpackArchive(wheel, "wheel", { extractDir: sitePackages });
  pyodide.runPython("import importlib; importlib.invalidate_caches()");
}

const quiet = { stdout: () => {}, stderr: () => {} };

/** Raised when a stored snapshot's bytes do not match their checksum. */
class Damaged extends Error {}

/**
 * A Pyodide restored from `found` with the emulator usable, or an exception (the instance is dropped).
 * `compiled` is pyodide.asm.wasm, compiling since the snapshot was found.
 *
 * The snapshot holds every emulator module and the parsed labs, so the first
 * commands read no file; the wheel's files are unpacked again once the
 * terminal is idle (`unpackLater`); only then is the wheel downloaded.
 */
async function restore(loadPyodide, indexURL, found, compiled, wheel) {
  // A damaged heap is never restored; the module compiles meanwhile, on other threads.
  if (!snapshots.intact(found)) throw new Damaged("the stored snapshot is damaged");
  const undo = snapshots.prepareInstantiation(found.bytes, compiled);
  // Pyodide fetches pyodide.asm.wasm itself too: it gets a stand-in, since `compiled` is used.
  // The files the worker began downloading when it started are handed over, once each.
  const fetching = self.fetch;
  self.fetch = (input, init) => {
    const url = String(input);
    if (url.endsWith("/pyodide.asm.wasm")) return Promise.resolve(new Response(null));
    const early = EARLY?.downloads.get(url);
    EARLY?.downloads.delete(url);
    return early ?? fetching(input, init);
  };
  let pyodide;
  try {
    pyodide = await loadPyodide({ indexURL, _loadSnapshot: found.bytes, ...quiet });
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
  unpackLater = () => wheel().then((bytes) => install(pyodide, bytes)).catch(() => {});
  return module;
}

/** After a restore: unpack the wheel's files (not part of a snapshot) at the next quiet moment. */
let unpackLater = null;

/** What the snapshot maker needs, kept after a normal load; null once started or when not wanted. */
let maker = null;
/** The labs and seeds this visit opened, latest last: the snapshot keeps a fresh session of each. */
const visited = [];
const VISITED_KEPT = 3;

function visit(lab, seed) {
  const entry = [typeof lab === "string" ? lab : null, Number.isSafeInteger(seed) ? seed : 0];
  const at = visited.findIndex(([l, s]) => l === entry[0] && s === entry[1]);
  if (at >= 0) visited.splice(at, 1);
  visited.push(entry);
  if (visited.length > VISITED_KEPT) visited.shift();
}
let idleTimer = null;

/** After each request: background work waits for the terminal to be quiet (the first command done). */
function whenQuiet(handled) {
  clearTimeout(idleTimer);
  if (unpackLater) {
    const unpack = unpackLater;
    unpackLater = null;
    setTimeout(unpack, handled === Msg.RUN ? 0 : UNPACK_AFTER_IDLE_MS);
  }
  if (maker) idleTimer = setTimeout(startMaker, MAKE_AFTER_IDLE_MS);
}

function startMaker() {
  const { indexURL, wheel, key } = maker;
  maker = null;
  let child;
  try {
    child = new Worker(new URL("./maker.js", import.meta.url), { type: "module" });
  } catch (error) {
    post({ type: Msg.SAVED, stored: false, reason: `no worker for the snapshot (${describe(error)})` });
    return;
  }
  child.addEventListener("message", (event) => {
    child.terminate();
    post({ type: Msg.SAVED, ...event.data });
  });
  child.addEventListener("error", (event) => {
    event.preventDefault();
    child.terminate();
    post({ type: Msg.SAVED, stored: false, reason: event.message || "the snapshot worker failed" });
  });
  child.postMessage({ indexURL, wheel, key, visited }, [wheel]);
}

async function loadRuntime() {
  const started = performance.now();
  progress(Stage.MANIFEST);
  const manifestPromise = fetchOk(MANIFEST_URL, "The runtime manifest").then((response) => response.json());
  const keyPromise = manifestPromise.then((m) => snapshots.snapshotKey(m.pyodideVersion, m.sha256));
  keyPromise.catch(() => {}); // a failed manifest is reported just below
  // The stored snapshot is read while the manifest is fetched; the manifest then says whether it fits.
  const stored = SNAPSHOTS_WANTED ? snapshots.read(keyPromise) : Promise.resolve({ missing: "turned off", skip: true });
  const manifest = await manifestPromise;
  const key = await keyPromise;
  const pyodideURL = new URL(manifest.pyodide, MANIFEST_URL);
  progress(Stage.RUNTIME);
  let wheelPromise = null;
  const wheel = () => (wheelPromise ??= fetchWheel(manifest));
  const asm = import(new URL("pyodide.asm.mjs", pyodideURL).href); // loadPyodide imports it too: start it now
  asm.catch(() => {});
  const found = manifest.snapshot === false ? { missing: "turned off for this site", skip: true } : await stored;
  // Restoring: compile pyodide.asm.wasm (from Chromium's code cache, on a repeat visit) beside the script's loading.
  const wasmURL = new URL("pyodide.asm.wasm", pyodideURL).href;
  const compiled = !found.bytes ? null
    : EARLY?.wasm === wasmURL ? EARLY.compiled : WebAssembly.compileStreaming(plainFetch(wasmURL));
  compiled?.catch(() => {}); // awaited inside loadPyodide
  const { loadPyodide } = await import(new URL("pyodide.mjs", pyodideURL).href);
  self.fetch = countingFetch;
  let note = null;
  if (found.bytes) {
    progress(Stage.RESTORING);
    try {
      const module = await restore(loadPyodide, pyodideURL.href, found, compiled, wheel);
      post({ type: Msg.LOADED, runtime: "snapshot", note, ms: Math.round(performance.now() - started) });
      return module;
    } catch (error) {
      // Never reuse a half-restored instance: drop it and load normally. A damaged copy is made again;
      // one that fails to restore is marked, so this browser does not try it again.
      if (error instanceof Damaged) {
        await snapshots.forget(key);
        found.damaged = true;
      } else {
        await snapshots.skip(key, `restore failed: ${describe(error)}`);
        note = "The terminal's saved start-up copy could not be used, so it started normally.";
        found.skip = true;
      }
      found.missing = describe(error);
      progress(Stage.RUNTIME);
    }
  }
  if (found.damaged) note = "The terminal's saved start-up copy was damaged, so it started normally.";
  wheel().catch(() => {}); // downloads beside Pyodide; awaited below, where a failure is reported
  const pyodide = await loadPyodide({ indexURL: pyodideURL.href, ...quiet });
  progress(Stage.WHEEL);
  const bytes = await wheel();
  install(pyodide, bytes);
  progress(Stage.SESSION);
  const module = pyodide.pyimport("emulator.web");
  if (!found.skip) maker = { indexURL: pyodideURL.href, wheel: bytes.slice(0), key };
  post({ type: Msg.LOADED, runtime: "fresh", note, reason: found.missing ?? null,
         ms: Math.round(performance.now() - started) });
  return module;
}

function runtime() {
  if (!loading) {
    loading = loadRuntime().then((module) => {
      web = module;
      return module;
    });
    loading.catch((error) => post({ type: Msg.FATAL, message: describe(error) }));
  }
  return loading;
}

function describe(error) {
  const text = String(error && error.message ? error.message : error);
  // A Python exception's message ends with the traceback's last line: keep that.
  const lines = text.trim().split("\n");
  return lines[lines.length - 1];
}

/** Call emulator.web.NAME and give back plain JavaScript values. */
function call(name, ...args) {
  const value = web[name](...args);
  if (value && typeof value.toJs === "function") {
    const plain = value.toJs({ dict_converter: Object.fromEntries, create_pyproxies: false });
    value.destroy();
    return plain;
  }
  return value;
}

/** Like call, for functions answering with an object (sent as JSON or as a dict). */
function callObject(name, ...args) {
  const value = call(name, ...args);
  return typeof value === "string" ? JSON.parse(value) : value;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The request id of the line each session is running; a newer line takes over the session. */
const running = new Map();

async function run(id, sid, line) {
  if (typeof web.incomplete === "function" && callObject("incomplete", line)) {
    // An open quote, a trailing | or a `for` without `done`: the page asks for another line.
    post({ type: Msg.DONE, id, status: null, prompt: null, state: null, more: true });
    return;
  }
  running.set(sid, id);
  call("start", sid, line);
  for (;;) {
    if (running.get(sid) !== id) return; // superseded by a newer line (the page moved on)
    const step = callObject("step", sid);
    if (step.out && step.out.length) {
      post({ type: Msg.OUTPUT, id, chunks: step.out });
    }
    if (step.done) {
      running.delete(sid);
      post({ type: Msg.DONE, id, status: step.status, prompt: step.prompt, state: null,
             lab: step.lab, seed: step.seed, title: step.title, goal: step.goal });
      return;
    }
    await sleep(Math.min(Math.max(Number(step.pause) || 0, 0) * 1000, MAX_PAUSE_MS));
  }
}

function ready(id, opened) {
  post({ type: Msg.READY, id, ...opened });
}

const handlers = {
  [Msg.OPEN]: (m) => {
    visit(m.lab, m.seed);
    ready(m.id, callObject("open_session", m.lab, m.seed, m.state ?? null));
  },
  [Msg.RESET]: (m) => ready(m.id, callObject("reset", m.sid)),
  [Msg.RUN]: (m) => run(m.id, m.sid, m.line),
  [Msg.COMPLETE]: (m) => post({ type: Msg.COMPLETION, id: m.id, ...callObject("complete", m.sid, m.line) }),
  [Msg.SNAPSHOT]: (m) => {
    const state = call("snapshot", m.sid);
    post({ type: Msg.DONE, id: m.id, status: 0, prompt: null, state: typeof state === "string" ? state : JSON.stringify(state) });
  },
};

self.addEventListener("message", async (event) => {
  const message = event.data;
  clearTimeout(idleTimer); // the terminal is in use: the snapshot waits for the next quiet moment
  if (message.type === Msg.INTERRUPT) {
    if (web) call("interrupt", message.sid);
    return;
  }
  const handler = handlers[message.type];
  if (!handler) {
    post({ type: Msg.ERROR, id: message.id, message: `unknown message type ${message.type}` });
    return;
  }
  try {
    await runtime();
  } catch {
    return; // FATAL was posted once, by runtime()
  }
  try {
    await handler(message);
  } catch (error) {
    post({ type: Msg.ERROR, id: message.id, message: describe(error) });
  }
  whenQuiet(message.type);
});

// The page starts this worker only when it wants the runtime: begin loading now, not at the first request.
runtime().catch(() => {});
