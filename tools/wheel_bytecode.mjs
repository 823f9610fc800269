// Compiles a wheel's Python modules with the vendored Pyodide's own CPython, to
// unchecked-hash .pyc files (PEP 552), so the browser imports bytecode instead
// of compiling every module at start.
//   node tools/wheel_bytecode.mjs WHEEL OUT_DIR
// Writes each __pycache__/*.pyc under OUT_DIR, at its path inside the wheel.
// Nothing is fetched: Pyodide comes from node_modules.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadPyodide } from "pyodide";

const [wheelPath, outDir] = process.argv.slice(2);
try {
  // Without column ranges (PEP 657's carets in tracebacks, which the terminal never shows) the bytecode is
  // a quarter smaller; line numbers stay.
  const pyodide = await loadPyodide({ env: { PYTHONNODEBUGRANGES: "1" } });
  pyodide.unpackArchive(new Uint8Array(readFileSync(wheelPath)), "wheel", { extractDir: "/wheel" });
  // Each module is compiled without the docstrings and function annotations nothing reads at run time
  // (nothing calls typing.get_type_hints or inspect): smaller bytecode, and less of it to load. These stay:
  // the docstring of a module that reads its own __doc__, of a decorated class (dataclass would write one
  // from the signature, at import), and the annotations in class bodies (dataclass fields).
  const compiled = pyodide.runPython(`
import ast, importlib.util, os
from importlib._bootstrap_external import _code_to_hash_pyc

def names_doc(tree):
    return any(isinstance(node, ast.Name) and node.id == "__doc__" for node in ast.walk(tree))

def has_docstring(node):
    first = node.body[0] if node.body else None
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)

def stripped(tree):
    keep_module_doc = names_doc(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
            arguments = node.args
            for arg in arguments.posonlyargs + arguments.args + arguments.kwonlyargs + [arguments.vararg, arguments.kwarg]:
                if arg is not None:
                    arg.annotation = None
        if isinstance(node, ast.Module) and keep_module_doc or isinstance(node, ast.ClassDef) and node.decorator_list:
            continue
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and has_docstring(node):
            if len(node.body) > 1:
                del node.body[0]
            else:
                node.body[0] = ast.copy_location(ast.Pass(), node.body[0])
    return tree

if next(compile("x = 1", "", "exec").co_positions())[2] is not None:
    raise RuntimeError("PYTHONNODEBUGRANGES did not reach the compiler: column ranges are still compiled")
written = []
for folder, _, files in os.walk("/wheel"):
    for name in sorted(files):
        if not name.endswith(".py"):
            continue
        path = os.path.join(folder, name)
        with open(path, "rb") as f:
            source = f.read()
        code = compile(stripped(ast.parse(source, path)), path, "exec", dont_inherit=True)
        target = importlib.util.cache_from_source(path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(_code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False))
        written.append(os.path.relpath(target, "/wheel"))
written
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
