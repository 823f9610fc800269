/**
 * The page's side of the worker: one worker per visit, shared by every
 * terminal the visit shows (it survives Material's instant navigation because
 * this module is evaluated once per full page load).
 *
 * Requests are matched to replies by id. Listeners hear the runtime's state
 * (loading progress, ready, failed). `restart()` replaces a worker that no
 * longer answers (watchdog.js finds it); terminals then reopen their sessions
 * from saved state.
 *
 * The runtime starts from a memory snapshot when the browser holds one (see
 * loader.js) unless the page's address says `?snapshot=off` or localStorage
 * holds `mdx-terminal:snapshot` = `off`. `origin` says which path ran.
 */

import { Msg, LOAD_TIMEOUT_MS } from "./protocol.js";

/** Plain-words reasons the terminal cannot run, shown instead of a terminal. */
export const Failure = Object.freeze({
  FILE:
    "This page was opened as a file (file://), and browsers do not run the terminal's Python runtime from files. " +
    "Serve the site instead (for example `make serve`, or `python3 -m http.server -d site 8000`) and open " +
    "http://127.0.0.1:8000/. The rest of the page reads fine without the terminal.",
  NO_WASM:
    "This browser cannot run WebAssembly (it is missing or turned off), so the terminal cannot start. " +
    "The rest of the page reads fine without it.",
  NO_WORKER:
    "This browser could not start the terminal's background worker, so the terminal cannot run. " +
    "The rest of the page reads fine without it.",
  TIMEOUT:
    `The terminal's Python runtime did not start within ${LOAD_TIMEOUT_MS / 1000} seconds, so it was stopped. ` +
    "Reload the page to try again; the rest of the page reads fine without the terminal.",
  RUNTIME: (reason) =>
    `The terminal's Python runtime failed to load: ${reason}. ` +
    "Reload the page to try again; the rest of the page reads fine without the terminal.",
});

/** The localStorage key that turns start-up snapshots off in this browser ("off"). */
export const SNAPSHOT_SETTING = "mdx-terminal:snapshot";

/**
 * localStorage: the key of the usable snapshot this browser holds, so prestart.js starts the next page's
 * runtime at once and the worker restores it before the manifest confirms the key.
 */
const SNAPSHOT_HELD = "mdx-terminal:snapshot-held";

/** The key of the snapshot this browser now holds, or null for none. */
function remember(key) {
  try {
    if (key) localStorage.setItem(SNAPSHOT_HELD, key);
    else localStorage.removeItem(SNAPSHOT_HELD);
  } catch {
    // storage disabled: the runtime starts when the page is idle
  }
}

/** Whether this page load may start the runtime from a snapshot (and make one). */
export function snapshotsWanted() {
  if (new URLSearchParams(location.search).get("snapshot") === "off") return false;
  try {
    return localStorage.getItem(SNAPSHOT_SETTING) !== "off";
  } catch {
    return true;
  }
}

/** Why this browser or address cannot run the terminal at all, or null. */
export function environmentFailure() {
  if (location.protocol === "file:") return Failure.FILE;
  if (typeof WebAssembly !== "object" || typeof WebAssembly.instantiate !== "function") return Failure.NO_WASM;
  if (typeof Worker !== "function") return Failure.NO_WORKER;
  return null;
}

/**
 * The worker's start-up stages (LOADED's `stages`: when each ended, in ms since the epoch) as performance
 * marks `mdx:<stage>` on the page's own clock, for the benchmark and the browser's performance panel.
 */
function markStages(stages) {
  for (const [stage, at] of Object.entries(stages ?? {})) {
    const startTime = at - performance.timeOrigin;
    if (startTime >= 0) performance.mark(`mdx:${stage}`, { startTime });
  }
}

export class Runtime {
  constructor() {
    this.worker = null;
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = new Set();
    /** "idle" | "loading" | "ready" | "failed" */
    this.state = "idle";
    this.progress = null;
    this.failure = null;
    this.timer = null;
    /** "snapshot" or "fresh" once loaded: how the runtime started; the worker's LOADED report. */
    this.origin = null;
    this.loaded = null;
    /** A sentence about the start-up for the learner, or null; shown once (noteShown). */
    this.note = null;
    this.noteShown = false;
    /** The snapshot maker's report {stored, reason, bytes, ms} once it has finished. */
    this.saved = null;
    /** Whether the page heard `mdx:runtime-settled` (the runtime first became ready or failed). */
    this.settled = false;
  }

  /** Hear state changes: listener({state, progress, failure, restarted}). */
  listen(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(extra = {}) {
    if ((this.state === "ready" || this.state === "failed") && !this.settled) {
      this.settled = true;
      document.dispatchEvent(new Event("mdx:runtime-settled")); // prestart.js releases the search index
    }
    for (const listener of this.listeners) {
      listener({ state: this.state, progress: this.progress, failure: this.failure, origin: this.origin,
                 note: this.note, saved: this.saved, ...extra });
    }
  }

  /** Start the worker (once), or adopt the one prestart.js started. Safe to call again. */
  start() {
    if (this.worker || this.state === "failed") return;
    const failure = environmentFailure();
    if (failure) return this.fail(failure);
    const prestarted = window.mdxPrestarted?.take();
    try {
      if (prestarted) {
        this.worker = prestarted.worker;
      } else {
        const url = new URL("./worker.js", import.meta.url);
        if (!snapshotsWanted()) url.searchParams.set("snapshot", "off");
        this.worker = new Worker(url, { type: "module" });
        performance.mark("mdx:worker-created");
      }
    } catch {
      return this.fail(Failure.NO_WORKER);
    }
    const failed = (event) => {
      event.preventDefault();
      this.fail(Failure.RUNTIME(event.message || "the worker script could not be loaded"));
    };
    this.worker.addEventListener("message", (event) => this.receive(event.data));
    this.worker.addEventListener("error", failed);
    this.state = "loading";
    this.timer = setTimeout(() => {
      if (this.state === "loading") this.fail(Failure.TIMEOUT);
    }, LOAD_TIMEOUT_MS);
    this.emit();
    for (const event of prestarted?.events ?? []) {
      if (event.type === "error") failed(event);
      else this.receive(event.data);
    }
  }

  /** Whether the worker is already starting (prestart.js found a snapshot held): start at once. */
  prestarted() {
    return Boolean(window.mdxPrestarted);
  }

  /** Replace an unresponsive worker; terminals reopen their sessions. */
  restart() {
    this.stop();
    this.state = "idle";
    this.failure = null;
    this.origin = null;
    this.start();
    this.emit({ restarted: true });
  }

  stop() {
    clearTimeout(this.timer);
    if (this.worker) this.worker.terminate();
    this.worker = null;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const request of pending) request.onError?.("the runtime was restarted");
  }

  fail(message) {
    this.stop();
    this.state = "failed";
    this.failure = message;
    this.emit();
  }

  /** Send a request; handlers: onReady, onOutput, onDone, onCompletion, onPong, onError. Returns its id. */
  request(message, handlers) {
    this.start();
    const id = this.nextId++;
    if (this.state === "failed") {
      handlers.onError?.(this.failure);
      return id;
    }
    this.pending.set(id, handlers);
    this.worker.postMessage({ ...message, id });
    return id;
  }

  /** An in-site link to `path` was clicked: a running worker builds that page's lab session meanwhile. */
  prepare(path) {
    if (this.worker && this.state !== "failed") this.worker.postMessage({ type: Msg.PREPARE, path });
  }

  interrupt(sid) {
    if (this.worker) this.worker.postMessage({ type: Msg.INTERRUPT, sid });
  }

  /** Forget a request whose replies nobody wants any more. */
  forget(id) {
    this.pending.delete(id);
  }

  receive(message) {
    switch (message.type) {
      case Msg.PROGRESS:
        this.progress = message;
        this.emit();
        return;
      case Msg.FATAL:
        this.fail(Failure.RUNTIME(message.message));
        return;
      case Msg.LOADED:
        this.loaded = message;
        markStages(message.stages);
        this.origin = message.runtime;
        if (snapshotsWanted()) remember(message.runtime === "snapshot" ? message.key : null);
        this.note = message.note;
        this.emit();
        return;
      case Msg.TRACE:
        markStages(Object.fromEntries(message.marks));
        return;
      case Msg.SAVED:
        this.saved = message;
        remember(message.stored ? message.key : null);
        this.emit();
        return;
      default:
        // Any answer to a request means the runtime has loaded.
        if (this.state !== "ready") {
          clearTimeout(this.timer);
          this.state = "ready";
          this.emit();
        }
    }
    const handlers = this.pending.get(message.id);
    if (!handlers) return;
    switch (message.type) {
      case Msg.READY:
        this.pending.delete(message.id);
        handlers.onReady?.(message);
        break;
      case Msg.OUTPUT:
        handlers.onOutput?.(message.chunks);
        break;
      case Msg.DONE:
        this.pending.delete(message.id);
        handlers.onDone?.(message);
        break;
      case Msg.COMPLETION:
        this.pending.delete(message.id);
        handlers.onCompletion?.(message);
        break;
      case Msg.PONG:
        this.pending.delete(message.id);
        handlers.onPong?.(message);
        break;
      case Msg.ERROR:
        this.pending.delete(message.id);
        handlers.onError?.(message.message);
        break;
      default:
        break;
    }
  }
}

/** The one runtime of this visit. */
export const runtime = new Runtime();
