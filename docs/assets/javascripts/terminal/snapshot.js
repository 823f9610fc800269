/**
 * The runtime's memory snapshot, kept in the reader's own browser.
 *
 * A snapshot is Pyodide's whole WebAssembly memory right after the emulator
 * was imported (pyodide.makeMemorySnapshot). It is kept in the origin private
 * file system (OPFS), in the folder `mdx-runtime-snapshot-v<SCHEMA>`, as one
 * file named `<key>.<checksum>.heap`: the key names the Pyodide version and
 * the wheel's sha256, and the snapshot's own checksum follows it, so a new
 * deploy, a new Pyodide or a damaged file is never restored. A file `<key>.skip`
 * instead says this deploy's snapshot cannot be used in this browser.
 *
 * Workers read the file with a synchronous access handle, about three times
 * faster than Cache Storage for these 30 MiB, into memory that checksum.js
 * sums in place. Every failure here (no OPFS in
 * a private window, quota, a missing, locked or corrupt file) answers "no
 * snapshot", and the worker loads normally.
 */

import { allocate, checksum } from "./checksum.js";

export { checksum };

/** Bump when what goes into a snapshot, or how it is stored, changes. */
export const SCHEMA = 2;
const FOLDER_PREFIX = "mdx-runtime-snapshot-v";
const FOLDER = `${FOLDER_PREFIX}${SCHEMA}`;
const HEAP = ".heap";
const SKIP = ".skip";
/**
 * The largest heap kept. Pyodide 314 restores into the module's initial
 * memory (30 MiB) without growing it, and the emulator's import takes the
 * heap past that; `prepareInstantiation` grows the memory first.
 */
export const MAX_HEAP_BYTES = 96 * 1024 * 1024;
const WASM_PAGE = 65536;
/** Modules up to this size are compiled once per distinct bytes while a restore links Pyodide. */
const SMALL_MODULE_BYTES = 256;
/** The first word of every Pyodide memory snapshot. */
const MAGIC = 0x706e7300;
/** Where the snapshot's JSON starts: after the magic, offsets and build id. */
const JSON_AT = 48;

/** What a snapshot file's name starts with for this Pyodide, wheel and standard library. */
export function snapshotKey(pyodideVersion, wheelSha256, stdlibSha256) {
  return `${encodeURIComponent(pyodideVersion)}-${wheelSha256}-${stdlibSha256}`;
}

export async function sha256Hex(buffer) {
  const digest = await crypto.subtle.digest("SHA-256", buffer);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Why `bytes` cannot be restored by this Pyodide, or null. */
export function unusable(bytes) {
  if (bytes.byteLength < 64 || bytes.byteLength % 4) return "truncated";
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, 4);
  if (words[0] !== MAGIC) return "not a snapshot";
  const heapAt = words[1];
  if (heapAt >= bytes.byteLength || heapAt % 16 || JSON_AT + words[2] > heapAt) return "damaged header";
  if (bytes.byteLength - heapAt > MAX_HEAP_BYTES) return "too big to restore";
  return null;
}

/**
 * Make the next Pyodide instance from the `compiled` module and as big as the snapshot's heap.
 *
 * `compiled` is pyodide.asm.wasm compiled while the snapshot was read, so
 * Pyodide's own instantiateStreaming takes it and ignores the response it
 * passes. restoreSnapshot copies the heap into the
 * memory the module starts with (30 MiB), so a bigger heap fails ("offset is
 * out of bounds"): the memory is grown the moment it is instantiated, before
 * Pyodide makes its views of it.
 *
 * While Pyodide links itself it wraps about 260 JavaScript functions for the
 * function table, compiling one tiny module for each, though their bytes
 * differ only by the function's signature: identical small modules are
 * compiled once (about 20 ms less). Returns the function that undoes all of it.
 */
export function prepareInstantiation(bytes, compiled) {
  const heap = bytes.byteLength - new Uint32Array(bytes.buffer, bytes.byteOffset, 4)[1];
  const { instantiate, instantiateStreaming, Module } = WebAssembly;
  const small = new Map();
  function SmallModuleOnce(source) {
    if (!(source instanceof Uint8Array) || source.byteLength > SMALL_MODULE_BYTES) return new Module(source);
    const key = source.join(",");
    if (!small.has(key)) small.set(key, new Module(source));
    return small.get(key);
  }
  SmallModuleOnce.prototype = Module.prototype;
  Object.assign(SmallModuleOnce, { customSections: Module.customSections, exports: Module.exports, imports: Module.imports });
  WebAssembly.Module = SmallModuleOnce;
  const grow = (instance) => {
    const memory = instance.exports.memory;
    if (memory instanceof WebAssembly.Memory && memory.buffer.byteLength < heap) {
      memory.grow(Math.ceil((heap - memory.buffer.byteLength) / WASM_PAGE));
    }
  };
  WebAssembly.instantiateStreaming = async (source, imports) => {
    const module = await compiled;
    const instance = await instantiate.call(WebAssembly, module, imports);
    grow(instance);
    return { module, instance };
  };
  WebAssembly.instantiate = async (...args) => {
    const result = await instantiate.apply(WebAssembly, args);
    grow(result instanceof WebAssembly.Instance ? result : result.instance);
    return result;
  };
  return () => Object.assign(WebAssembly, { instantiate, instantiateStreaming, Module });
}

/** This origin's snapshot folder, or null where there is no OPFS; throws NotFoundError when `create` is false and it is missing. */
async function folder(create) {
  if (typeof navigator === "undefined" || !navigator.storage?.getDirectory) return null;
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(FOLDER, { create });
}

const errorName = (error) => (error && error.name ? error.name : String(error));

/** The whole file, through a read-only synchronous handle where the browser allows one (workers), else as a File. */
async function readBytes(handle) {
  if (typeof handle.createSyncAccessHandle === "function") {
    try {
      const access = await handle.createSyncAccessHandle({ mode: "read-only" });
      try {
        const bytes = allocate(access.getSize());
        if (access.read(bytes, { at: 0 }) === bytes.byteLength) return bytes;
      } finally {
        access.close();
      }
    } catch {
      // locked by a writer in another tab, or no read-only mode here: read it as a File
    }
  }
  return new Uint8Array(await (await handle.getFile()).arrayBuffer());
}

/** Write `bytes` to a new file `name`: a synchronous handle in workers, a writable stream elsewhere. */
async function writeBytes(dir, name, bytes) {
  const handle = await dir.getFileHandle(name, { create: true });
  if (typeof handle.createSyncAccessHandle === "function") {
    const access = await handle.createSyncAccessHandle();
    try {
      access.truncate(0);
      if (access.write(bytes, { at: 0 }) !== bytes.byteLength) throw new Error("short write");
      access.flush();
    } finally {
      access.close();
    }
    return;
  }
  const writable = await handle.createWritable();
  await writable.write(bytes);
  await writable.close();
}

/**
 * The stored snapshot for `key`, read without waiting for the manifest:
 * `{bytes, sum}` where `sum` is the checksum its name records (`intact` checks
 * it), or `{missing: reason, skip, damaged}`. `key` is a promise of the key
 * this deploy expects.
 */
export async function read(key) {
  let dir;
  try {
    dir = await folder(false);
    if (!dir) return { missing: "no private file storage", skip: true };
  } catch (error) {
    if (errorName(error) === "NotFoundError") return { missing: "none stored" };
    // Storage refused (a private window, a blocked origin): nothing can be kept, so none is made.
    return { missing: `unreadable (${errorName(error)})`, skip: true };
  }
  try {
    let file = null;
    for await (const handle of dir.values()) {
      if (handle.kind === "file") {
        file = handle;
        break;
      }
    }
    if (!file) return { missing: "none stored" };
    const body = file.name.endsWith(HEAP) ? readBytes(file) : null;
    body?.catch(() => {}); // awaited below unless the file is not wanted
    const expected = await key;
    if (!file.name.startsWith(`${expected}.`)) return { missing: "made for another deploy" };
    if (file.name.endsWith(SKIP)) {
      return { missing: `not usable here (${await (await file.getFile()).text()})`, skip: true };
    }
    const sum = file.name.slice(expected.length + 1, -HEAP.length);
    const bytes = await body;
    const reason = unusable(bytes);
    if (reason) {
      await dir.removeEntry(file.name);
      return { missing: reason, damaged: true };
    }
    return { bytes, sum };
  } catch (error) {
    // Most likely another tab holds the file: this load starts normally and leaves the file alone.
    return { missing: `unreadable (${errorName(error)})`, skip: true };
  }
}

/** Whether a snapshot `read` found has the checksum its name records. */
export function intact(found) {
  return checksum(found.bytes) === found.sum;
}

/** Drop a damaged snapshot, so a good one is made again. */
export async function forget(key) {
  try {
    const dir = await folder(false);
    for await (const handle of dir.values()) {
      if (handle.name.startsWith(`${key}.`)) await dir.removeEntry(handle.name);
    }
  } catch {
    // nothing to forget
  }
}

/** Store `bytes` under `key` and drop every other snapshot: {stored, reason}. */
export async function write(key, bytes) {
  try {
    const dir = await folder(true);
    if (!dir) return { stored: false, reason: "no private file storage" };
    await forgetOthers(dir);
    await writeBytes(dir, `${key}.${checksum(bytes)}${HEAP}`, bytes);
    return { stored: true };
  } catch (error) {
    return { stored: false, reason: errorName(error) };
  }
}

/** Mark `key` as not usable in this browser (too big, or it failed to restore), so it is not made again. */
export async function skip(key, reason) {
  try {
    const dir = await folder(true);
    if (!dir) return;
    await forgetOthers(dir);
    await writeBytes(dir, `${key}${SKIP}`, new TextEncoder().encode(reason.slice(0, 200)));
  } catch {
    // the next load tries again
  }
}

/** Other deploys' snapshots, and other schemas' folders, take space for nothing. */
async function forgetOthers(dir) {
  const root = await navigator.storage.getDirectory();
  for await (const handle of root.values()) {
    if (handle.name.startsWith(FOLDER_PREFIX) && handle.name !== FOLDER) await root.removeEntry(handle.name, { recursive: true });
  }
  for await (const handle of dir.values()) await dir.removeEntry(handle.name);
  // Schema 1 kept its snapshots in Cache Storage.
  if (typeof caches !== "undefined") await caches.delete(`${FOLDER_PREFIX}1`);
}
