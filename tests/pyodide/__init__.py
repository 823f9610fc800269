"""The Pyodide lane: the emulator in WebAssembly agrees with CPython."""
