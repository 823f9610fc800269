/**
 * Makes the runtime's memory snapshot, in a worker of its own.
 *
 * The emulator worker starts it once the reader's terminal has been idle
 * after a normal load, so the learner's first command never waits for it. It
 * loads a second, clean Pyodide with `_makeSnapshot` (and the standard library
 * the runtime it restores into loads), unpacks the wheel into
 * site-packages (loadPackage would break the snapshot), imports every module
 * of the emulator, reads every lab file, and warms it with one throw-away session (so a restored
 * runtime opens its first session without importing or compiling anything),
 * builds a fresh session of each lab the visit opened (`visited`, so a
 * restored runtime opens those without building their clusters),
 * takes the snapshot once no session is left, stores it (snapshot.js) and
 * reports {stored, reason, bytes, ms} to its parent, which then ends it.
 */

import { MAX_HEAP_BYTES, skip, unusable, write } from "./snapshot.js";

/** Python run before the snapshot: import everything, read every lab, use one session; prepare the visit's labs. */
const WARM_UP = `
import json
import emulator.web as web
web.warm_all()
for lab, seed in json.loads(VISITED):
    web.prepare(lab, seed)
`;

self.addEventListener("message", async (event) => {
  const { indexURL, stdLibURL, wheel, key, visited } = event.data;
  const started = performance.now();
  let report;
  try {
    const { loadPyodide } = await import(new URL("pyodide.mjs", indexURL).href);
    const pyodide = await loadPyodide({ indexURL, stdLibURL, _makeSnapshot: true, stdout: () => {}, stderr: () => {} });
    const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
    pyodide.unpackArchive(wheel, "wheel", { extractDir: sitePackages });
    pyodide.runPython("import importlib; importlib.invalidate_caches()");
    pyodide.globals.set("VISITED", JSON.stringify(visited ?? []));
    pyodide.runPython(WARM_UP);
    pyodide.globals.delete("VISITED");
    const bytes = pyodide.makeMemorySnapshot();
    const reason = unusable(bytes);
    if (reason) {
      await skip(key, reason);
      report = { stored: false, reason, bytes: bytes.byteLength, heapLimit: MAX_HEAP_BYTES };
    } else {
      report = { ...(await write(key, bytes)), bytes: bytes.byteLength };
      // Out of quota or refused: do not spend a second Pyodide on every visit of this deploy.
      if (!report.stored) await skip(key, `not stored: ${report.reason}`);
    }
  } catch (error) {
    report = { stored: false, reason: String(error && error.message ? error.message : error).split("\n")[0] };
  }
  self.postMessage({ ...report, ms: Math.round(performance.now() - started) });
});
