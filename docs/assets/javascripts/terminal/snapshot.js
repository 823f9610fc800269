/**
 * The runtime's memory snapshot, kept in the reader's own browser.
 *
 * A snapshot is Pyodide's whole WebAssembly memory right after the emulator
 * was imported (pyodide.makeMemorySnapshot). It is stored in Cache Storage
 * under a key naming the schema, the Pyodide version and the wheel's sha256,
 * with the snapshot's own sha256 beside it, so a new deploy, a new Pyodide or
 * a damaged entry is never restored. Every failure here (no Cache Storage in
 * a private window, quota, a missing or corrupt entry) answers "no snapshot",
 * and the worker loads normally.
 */

/** Bump when what goes into a snapshot, or how it is stored, changes. */
export const SCHEMA = 1;
const CACHE_PREFIX = "mdx-runtime-snapshot-v";
const CACHE_NAME = `${CACHE_PREFIX}${SCHEMA}`;
/**
 * The largest heap kept. Pyodide 314 restores into the module's initial
 * memory (30 MiB) without growing it, and the emulator's import takes the
 * heap to about 36 MiB; `growMemoryWhileLoading` grows the memory first.
 */
export const MAX_HEAP_BYTES = 96 * 1024 * 1024;
const WASM_PAGE = 65536;
/** The first word of every Pyodide memory snapshot. */
const MAGIC = 0x706e7300;
/** Where the snapshot's JSON starts: after the magic, offsets and build id. */
const JSON_AT = 48;
const DIGEST_HEADER = "x-mdx-snapshot-sha256";
/** A marker entry saying this deploy's snapshot cannot be used here: do not make it again. */
const SKIP_HEADER = "x-mdx-snapshot-skip";

/** The cache entry's address: never fetched, only a key. */
export function snapshotKey(manifestURL, pyodideVersion, wheelSha256) {
  return new URL(`snapshot/v${SCHEMA}/${encodeURIComponent(pyodideVersion)}/${wheelSha256}`, manifestURL).href;
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
 * Make the next Pyodide instance's memory as big as the snapshot's heap.
 *
 * restoreSnapshot copies the heap into the memory the module starts with
 * (30 MiB), so a bigger heap fails ("offset is out of bounds"). Growing the
 * memory the moment it is instantiated, before Pyodide makes its views of it,
 * lets the copy fit. Returns the function that undoes the wrapping.
 */
export function growMemoryWhileLoading(bytes) {
  const heap = bytes.byteLength - new Uint32Array(bytes.buffer, bytes.byteOffset, 4)[1];
  const { instantiate, instantiateStreaming } = WebAssembly;
  const grow = (result) => {
    const instance = result instanceof WebAssembly.Instance ? result : result.instance;
    const memory = instance.exports.memory;
    if (memory instanceof WebAssembly.Memory && memory.buffer.byteLength < heap) {
      memory.grow(Math.ceil((heap - memory.buffer.byteLength) / WASM_PAGE));
    }
    return result;
  };
  WebAssembly.instantiate = (...args) => instantiate.apply(WebAssembly, args).then(grow);
  WebAssembly.instantiateStreaming = (...args) => instantiateStreaming.apply(WebAssembly, args).then(grow);
  return () => Object.assign(WebAssembly, { instantiate, instantiateStreaming });
}

async function open() {
  if (typeof caches === "undefined") return null; // no Cache Storage here (insecure origin, some private modes)
  return caches.open(CACHE_NAME);
}

/**
 * The stored snapshot for `key`, read without waiting for the manifest:
 * `{bytes, intact}` where `intact` is a promise of whether its digest matches
 * (computed while Pyodide's script loads), or `{missing: reason, skip, damaged}`.
 * `key` is a promise of the key this deploy expects.
 */
export async function read(key) {
  try {
    const cache = await open();
    if (!cache) return { missing: "no Cache Storage", skip: true };
    const [request] = await cache.keys();
    if (!request) return { missing: "none stored" };
    const response = await cache.match(request);
    const body = response.arrayBuffer();
    body.catch(() => {}); // awaited below unless the entry is not wanted
    if (request.url !== (await key)) return { missing: "made for another deploy" };
    const skipped = response.headers.get(SKIP_HEADER);
    if (skipped) return { missing: `not usable here (${skipped})`, skip: true };
    const bytes = new Uint8Array(await body);
    const reason = unusable(bytes);
    const digest = response.headers.get(DIGEST_HEADER);
    if (reason) {
      await cache.delete(request);
      return { missing: reason, damaged: true };
    }
    return { bytes, intact: sha256Hex(bytes).then((hex) => hex === digest) };
  } catch (error) {
    // Storage refused (a private window, a blocked origin): nothing can be kept, so none is made.
    return { missing: `unreadable (${error && error.name ? error.name : error})`, skip: true };
  }
}

/** Drop a damaged snapshot, so a good one is made again. */
export async function forget(key) {
  try {
    const cache = await open();
    if (cache) await cache.delete(key);
  } catch {
    // nothing to forget
  }
}

/** Store `bytes` under `key` and drop every other snapshot; true when stored. */
export async function write(key, bytes) {
  try {
    const cache = await open();
    if (!cache) return { stored: false, reason: "no Cache Storage" };
    await forgetOthers(key);
    const headers = { "content-type": "application/octet-stream", [DIGEST_HEADER]: await sha256Hex(bytes) };
    await cache.put(key, new Response(bytes, { headers }));
    return { stored: true };
  } catch (error) {
    return { stored: false, reason: error && error.name ? error.name : String(error) };
  }
}

/** Mark `key` as not usable in this browser (too big, or it failed to restore), so it is not made again. */
export async function skip(key, reason) {
  try {
    const cache = await open();
    if (!cache) return;
    await forgetOthers(key);
    await cache.put(key, new Response("", { headers: { [SKIP_HEADER]: reason.slice(0, 200).replace(/[^\x20-\x7e]/g, "?") } }));
  } catch {
    // the next load tries again
  }
}

/** Snapshots of other deploys, Pyodide versions or schemas take space for nothing. */
async function forgetOthers(key) {
  for (const name of await caches.keys()) {
    if (name.startsWith(CACHE_PREFIX) && name !== CACHE_NAME) await caches.delete(name);
  }
  const cache = await caches.open(CACHE_NAME);
  for (const request of await cache.keys()) {
    if (request.url !== key) await cache.delete(request);
  }
}
