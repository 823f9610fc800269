/**
 * The emulator worker: owns Pyodide and every emulator session of the visit.
 *
 * It loads the runtime on the first request (Pyodide from the site, then the
 * emulator wheel named by the manifest, checked against its sha256), imports
 * `emulator.web` and answers the messages of protocol.js. A RUN is driven
 * chunk by chunk: `step` until done, posting each chunk, sleeping between
 * chunks with setTimeout so an INTERRUPT is handled in between (no
 * SharedArrayBuffer needed).
 */

import { Msg, Stage, MAX_PAUSE_MS } from "./protocol.js";

const MANIFEST_URL = new URL("../../emulator/manifest.json", import.meta.url);

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

/** fetch that reports the bytes of big downloads as they arrive. */
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
  if (!response.body) return response;
  bytes.total += Number(response.headers.get("content-length")) || 0;
  let last = 0;
  tracking += 1;
  const counter = new TransformStream({
    flush() {
      tracking -= 1;
      if (tracking === 0 && bytes.stage === Stage.RUNTIME) progress(Stage.STARTING);
    },
    transform(chunk, controller) {
      bytes.loaded += chunk.byteLength;
      if (bytes.loaded - last > 262144) {
        last = bytes.loaded;
        progress(bytes.stage);
      }
      controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(counter), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

async function fetchOk(url, what) {
  const response = await countingFetch(url, { cache: "no-cache" });
  if (!response.ok) {
    throw new Error(`${what} could not be fetched (HTTP ${response.status} for ${new URL(url).pathname})`);
  }
  return response;
}

async function sha256Hex(buffer) {
  const digest = await crypto.subtle.digest("SHA-256", buffer);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function loadRuntime() {
  progress(Stage.MANIFEST);
  const manifest = await (await fetchOk(MANIFEST_URL, "The runtime manifest")).json();
  const pyodideURL = new URL(manifest.pyodide, MANIFEST_URL);
  progress(Stage.RUNTIME);
  const { loadPyodide } = await import(new URL("pyodide.mjs", pyodideURL).href);
  self.fetch = countingFetch;
  const pyodide = await loadPyodide({ indexURL: pyodideURL.href, stdout: () => {}, stderr: () => {} });
  progress(Stage.WHEEL);
  const wheel = await (await fetchOk(new URL(manifest.wheel, MANIFEST_URL), "The emulator package")).arrayBuffer();
  const sha = await sha256Hex(wheel);
  if (sha !== manifest.sha256) {
    throw new Error("the emulator package does not match its manifest (a stale cache?)");
  }
  pyodide.unpackArchive(wheel, "wheel");
  pyodide.runPython("import importlib; importlib.invalidate_caches()");
  progress(Stage.SESSION);
  return pyodide.pyimport("emulator.web");
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
      post({ type: Msg.DONE, id, status: step.status, prompt: step.prompt, state: null });
      return;
    }
    await sleep(Math.min(Math.max(Number(step.pause) || 0, 0) * 1000, MAX_PAUSE_MS));
  }
}

function ready(id, opened) {
  post({ type: Msg.READY, id, ...opened });
}

const handlers = {
  [Msg.OPEN]: (m) => ready(m.id, callObject("open_session", m.lab, m.seed, m.state ?? null)),
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
});
