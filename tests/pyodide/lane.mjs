// Runs scenarios inside the vendored Pyodide under Node, as the site's worker
// runs them on a first visit: Pyodide loaded with the build's compiled
// standard library, the emulator imported straight from its wheel
// (emulator.wheelimport). Prints {"transcripts": [...], "fromSource": [...]}
// on stdout: the JSON transcript, and the standard-library modules compiled
// from source on the way to the output of a first `help` (none should be;
// later commands may still import a rarer module from its source).
//   node lane.mjs WHEEL STDLIB_ZIP TRANSCRIPT_PY SCENARIOS_JSON
// Nothing is fetched: Pyodide comes from node_modules, the rest from disk.
import { readFileSync } from "node:fs";
import { loadPyodide } from "pyodide";

const [wheelPath, stdlibPath, transcriptPath, scenariosPath] = process.argv.slice(2);
try {
  const pyodide = await loadPyodide({ stdLibURL: stdlibPath });
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  pyodide.FS.writeFile("/tmp/emulator.whl", new Uint8Array(readFileSync(wheelPath)));
  pyodide.runPython(`import sys\nsys.path.insert(0, "/tmp/emulator.whl")\nfrom emulator import wheelimport`);
  pyodide.runPython(`wheelimport.mount("/tmp/emulator.whl", ${JSON.stringify(sitePackages)})`);
  const fromSource = pyodide.runPython(`
import json
import emulator.web as web
sid = json.loads(web.open_session("sandbox", 0, None))["sid"]
web.start(sid, "help")
while not json.loads(web.step(sid))["done"]:
    pass
web.close(sid)
archive = next(p for p in sys.path if p.endswith(".zip")) + "/"
json.dumps(sorted(name for name, module in list(sys.modules.items())
                  if str(getattr(module, "__file__", "") or "").startswith(archive)
                  and getattr(module.__spec__, "origin", None) != "frozen" and not module.__file__.endswith(".pyc")))
`);
  pyodide.FS.writeFile("/tmp/transcript.py", readFileSync(transcriptPath, "utf8"));
  pyodide.globals.set("SCENARIOS", readFileSync(scenariosPath, "utf8"));
  const transcripts = pyodide.runPython(`
sys.path.insert(0, "/tmp")
import transcript
transcript.main(SCENARIOS)
`);
  const out = `{"transcripts": ${transcripts}, "fromSource": ${fromSource}}`;
  process.stdout.write(out);
} catch (error) {
  // Print the message (a Python traceback) alone, not the runtime's minified source.
  process.stderr.write(`${error?.name}: ${error?.message ?? error}\n`);
  process.exit(1);
}
