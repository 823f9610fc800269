// Loads Pyodide from the site's copy (PYODIDE_DIR is filled in by the benchmark) and prints one line.
const { loadPyodide } = await import(new URL("PYODIDE_DIR/pyodide.mjs", import.meta.url).href);
const pyodide = await loadPyodide({ indexURL: new URL("PYODIDE_DIR/", import.meta.url).href });
self.postMessage(pyodide.runPython("'floor ready'"));
