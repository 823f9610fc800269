/**
 * The emulator worker: owns Pyodide and every emulator session of the visit.
 *
 * This file is its entry and its message loop. It reads the worker's address
 * (`?snapshot=off` turns start-up snapshots off, `?pyodide=` names the
 * build's Pyodide folder), begins the early downloads on its first line and
 * starts loading the runtime at once. Then it takes the messages of
 * protocol.js: an INTERRUPT at once, even while a line runs; every other
 * request once the runtime has loaded, a failure being an ERROR for that
 * request alone.
 *
 * The rest has a module each: loader.js loads the runtime (from a memory
 * snapshot when this browser holds one), calls.js answers each request with
 * calls into `emulator.web`, background.js does the work that waits for a
 * quiet terminal, port.js posts to the page.
 */

import { Msg } from "./protocol.js";
import { describe, now, post, trace } from "./port.js";

const SNAPSHOTS_WANTED = new URL(import.meta.url).searchParams.get("snapshot") !== "off";
/** The longest the runtime's heavy start waits for the page's first paint. */
const PAINT_WAIT_LIMIT_MS = 1000;
/**
 * Resolves once the page has painted its content, for a worker prestart.js started from <head>
 * (`?paint=wait`; it posts PAINTED): on two cores, compiling and starting the runtime beside the page's
 * first layout delayed that paint by about 0.1 s. Downloads begin at once; compiling, the snapshot's read
 * and Pyodide's start wait. Resolved at once for a worker the page started later.
 */
const PAINTED = new URL(import.meta.url).searchParams.get("paint") !== "wait" ? Promise.resolve()
  : new Promise((resolve) => {
    self.addEventListener("message", (event) => {
      if (event.data?.type === Msg.PAINTED) resolve();
    });
    setTimeout(resolve, PAINT_WAIT_LIMIT_MS);
  });
/**
 * prestart.js names the Pyodide folder of the page's build (`?pyodide=`) and the compiled standard library
 * Pyodide is loaded with (`?stdlib=`) when it starts this worker. The manifest's download begins at once.
 * When this browser holds a snapshot (`?held=KEY`, the snapshot's key, or `1` where an older page stored
 * no key), compiling pyodide.asm.wasm, loading its script and downloading the files Pyodide reads while it
 * starts (the standard library and the lock file) begin at once, for the restore, which loader.js begins
 * before the manifest arrives when the key is known. Otherwise Pyodide's script starts loading, and
 * loader.js boots Pyodide from that folder before the manifest arrives. Either is used only if the
 * manifest names the same folder, standard library and key.
 */
const EARLY = (() => {
  const params = new URL(import.meta.url).searchParams;
  const hint = params.get("pyodide");
  const stdlibHint = params.get("stdlib");
  if (!hint || !stdlibHint || !SNAPSHOTS_WANTED) return null;
  const folder = new URL(hint, self.location.href);
  const stdlib = new URL(stdlibHint, self.location.href);
  if (folder.origin !== self.location.origin || stdlib.origin !== self.location.origin) return null;
  const manifest = self.fetch(new URL("../../emulator/manifest.json", import.meta.url), { cache: "no-cache" });
  manifest.catch(() => {}); // loader.js reports a failed manifest
  const held = params.get("held");
  if (!held) {
    const script = import(new URL("pyodide.mjs", folder).href);
    script.catch(() => {});
    return { folder: folder.href, stdlib: stdlib.href, manifest, painted: PAINTED, script };
  }
  const wasm = new URL("pyodide.asm.wasm", folder).href;
  const response = self.fetch(wasm);
  const compiled = PAINTED.then(() => WebAssembly.compileStreaming(response));
  compiled.catch(() => {});
  PAINTED.then(() => import(new URL("pyodide.asm.mjs", folder).href)).catch(() => {});
  const downloads = new Map();
  for (const url of [stdlib.href, new URL("pyodide-lock.json", folder).href]) {
    const response = self.fetch(url);
    response.catch(() => {});
    downloads.set(url, response);
  }
  return { folder: folder.href, wasm, stdlib: stdlib.href, manifest, heldKey: held === "1" ? null : held,
           painted: PAINTED, compiled, downloads };
})();

/**
 * The other modules, imported only after the early downloads above have begun (static imports would be
 * fetched and run before this file's first line). snapshot.js and checksum.js are loader.js's own
 * imports, named here so that they download beside it, not after it.
 */
const MODULES = Promise.all([
  import("./loader.js"), import("./calls.js"), import("./background.js"),
  import("./snapshot.js"), import("./checksum.js"),
]).then(([loader, calls, background]) => ({ loader, calls, background }));

let loading = null;

/** The runtime, loaded once: the promise of `emulator.web`, which calls.js is handed for its calls. */
function runtime() {
  if (!loading) {
    loading = MODULES.then(({ loader, calls }) =>
      loader.loadRuntime({ snapshotsWanted: SNAPSHOTS_WANTED, early: EARLY }).then((module) => {
        calls.attach(module);
        return module;
      }));
    loading.catch((error) => post({ type: Msg.FATAL, message: describe(error) }));
  }
  return loading;
}

self.addEventListener("message", async (event) => {
  const message = event.data;
  if (message?.type === Msg.PAINTED) return; // PAINTED (above) has it
  const received = now();
  let modules;
  try {
    modules = await MODULES;
  } catch (error) {
    post({ type: Msg.FATAL, message: describe(error) });
    return;
  }
  const { calls, background } = modules;
  if (message.type === Msg.PING) {
    post({ type: Msg.PONG, id: message.id }); // the page's watchdog: this worker still answers
    return;
  }
  background.inUse(); // the terminal is in use: the snapshot waits for the next quiet moment
  if (message.type === Msg.STALL) {
    // Test hook (watchdog.js sends it only when a test asked): compute without answering, as a hung command.
    for (const end = Date.now() + Number(message.ms); Date.now() < end;);
    return;
  }
  if (message.type === Msg.INTERRUPT) {
    calls.interrupt(message.sid);
    return;
  }
  const handler = calls.handlers[message.type];
  if (!handler) {
    post({ type: Msg.ERROR, id: message.id, message: `unknown message type ${message.type}` });
    return;
  }
  try {
    await runtime();
  } catch {
    return; // FATAL was posted once, by runtime()
  }
  const began = now();
  try {
    await handler(message);
  } catch (error) {
    post({ type: Msg.ERROR, id: message.id, message: describe(error) });
  }
  trace(message.type, began, now(), received);
  background.whenQuiet(message.type);
});

// The page starts this worker only when it wants the runtime: begin loading now, not at the first request.
runtime().catch(() => {});
