// Compiles the modules of the vendored Pyodide's standard library
// (python_stdlib.zip, which holds only .py sources) that Pyodide's start and
// the emulator import, with that Pyodide's own CPython, to unchecked-hash
// .pyc files (PEP 552) without column ranges: the browser then imports
// bytecode instead of compiling some 170 modules from source on every fresh
// start. The modules are those loaded once Pyodide has started and the
// emulator WHEEL, imported as the worker imports it, has imported every
// module and run `help` (emulator.web.warm_all).
//   node tools/stdlib_bytecode.mjs STDLIB_ZIP WHEEL OUT_DIR
// Writes, under OUT_DIR, each module's .pyc at its source's path with the
// suffix changed (the layout zipimport reads without sources), and prints
// how many. Nothing is fetched: Pyodide comes from node_modules.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadPyodide } from "pyodide";

const [stdlibPath, wheelPath, outDir] = process.argv.slice(2);
try {
  // Without column ranges (PEP 657's carets in tracebacks, which the terminal never shows) the bytecode is
  // a quarter smaller; line numbers stay. Docstrings stay too: the standard library reads some of its own.
  const pyodide = await loadPyodide({ env: { PYTHONNODEBUGRANGES: "1" } });
  pyodide.FS.writeFile("/tmp/stdlib.zip", new Uint8Array(readFileSync(stdlibPath)));
  // The emulator is imported as the browser's worker imports it on a first visit (loader.js).
  pyodide.FS.writeFile("/tmp/emulator.whl", new Uint8Array(readFileSync(wheelPath)));
  const compiled = pyodide.runPython(`
import importlib.util, os, sys, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc

sys.path.insert(0, "/tmp/emulator.whl")
from emulator import wheelimport
import site
wheelimport.mount("/tmp/emulator.whl", site.getsitepackages()[0])
import emulator.web
emulator.web.warm_all()

if next(compile("x = 1", "", "exec").co_positions())[2] is not None:
    raise RuntimeError("PYTHONNODEBUGRANGES did not reach the compiler: column ranges are still compiled")
# Tracebacks name a module by the path it has in the mounted archive, as they did when it was compiled there.
mounted = next(p for p in sys.path if p.endswith(".zip"))
used = {module.__file__.removeprefix(mounted + "/") for module in list(sys.modules.values())
        if str(getattr(module, "__file__", None) or "").startswith(mounted + "/")}
written = []
with zipfile.ZipFile("/tmp/stdlib.zip") as archive:
    for name in sorted(archive.namelist()):
        if name not in used:
            continue
        source = archive.read(name)
        code = compile(source, f"{mounted}/{name}", "exec", dont_inherit=True)
        target = "/out/" + name + "c"
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(_code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False))
        written.append(name + "c")
written
`).toJs();
  for (const path of compiled) {
    const target = join(outDir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, pyodide.FS.readFile(`/out/${path}`));
  }
  process.stdout.write(`${compiled.length}\n`);
} catch (error) {
  process.stderr.write(`${error?.name}: ${error?.message ?? error}\n`);
  process.exit(1);
}
