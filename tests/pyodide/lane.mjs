// Runs scenarios inside the vendored Pyodide under Node and prints a JSON
// transcript on stdout: node lane.mjs WHEEL TRANSCRIPT_PY SCENARIOS_JSON
// Nothing is fetched: Pyodide comes from node_modules, the wheel from disk.
import { readFileSync } from "node:fs";
import { loadPyodide } from "pyodide";

const [wheelPath, transcriptPath, scenariosPath] = process.argv.slice(2);
try {
  const pyodide = await loadPyodide();
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  pyodide.unpackArchive(new Uint8Array(readFileSync(wheelPath)), "wheel", { extractDir: sitePackages });
  pyodide.FS.writeFile("/tmp/transcript.py", readFileSync(transcriptPath, "utf8"));
  pyodide.globals.set("SCENARIOS", readFileSync(scenariosPath, "utf8"));
  const out = pyodide.runPython(`
import sys
sys.path.insert(0, "/tmp")
import transcript
transcript.main(SCENARIOS)
`);
  process.stdout.write(out);
} catch (error) {
  // Print the message (a Python traceback) alone, not the runtime's minified source.
  process.stderr.write(`${error?.name}: ${error?.message ?? error}\n`);
  process.exit(1);
}
