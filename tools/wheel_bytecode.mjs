// Compiles a wheel's Python modules with the vendored Pyodide's own CPython,
// so the browser imports bytecode instead of compiling every module at start.
//   node tools/wheel_bytecode.mjs WHEEL OUT_DIR
// Writes each __pycache__/*.pyc under OUT_DIR, at its path inside the wheel.
// Nothing is fetched: Pyodide comes from node_modules.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadPyodide } from "pyodide";

const [wheelPath, outDir] = process.argv.slice(2);
try {
  const pyodide = await loadPyodide();
  pyodide.unpackArchive(new Uint8Array(readFileSync(wheelPath)), "wheel", { extractDir: "/wheel" });
  const compiled = pyodide.runPython(`
import compileall, os, py_compile
compileall.compile_dir("/wheel", quiet=2, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
[os.path.relpath(os.path.join(d, f), "/wheel") for d, _, fs in os.walk("/wheel") for f in fs if f.endswith(".pyc")]
`).toJs();
  for (const path of compiled) {
    const target = join(outDir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, pyodide.FS.readFile(`/wheel/${path}`));
  }
  process.stdout.write(`${compiled.length}\n`);
} catch (error) {
  process.stderr.write(`${error?.name}: ${error?.message ?? error}\n`);
  process.exit(1);
}
