/**
 * The emulator worker's background work, which waits for the terminal to be
 * quiet so the learner's commands never wait for it: from the first command
 * done (or a second of quiet before it), the command families not yet
 * imported, one a task, a request waiting at most for the one being imported
 * (a tool's first use then does not pay its import); after a restore, the
 * wheel's files are unpacked again (they are not part of a snapshot); after a
 * normal load, once the terminal has been idle, maker.js makes the snapshot in
 * a worker of its own, with a fresh session of each lab the visit opened.
 */

import { Msg } from "./protocol.js";
import { describe, post } from "./port.js";

/** How long the terminal must be idle after a normal load before the snapshot is made. */
const MAKE_AFTER_IDLE_MS = 3000;
/** How long after the session opened, with no command yet, the wheel is unpacked again after a restore. */
const UNPACK_AFTER_IDLE_MS = 1000;

/** After a restore: unpack the wheel's files (not part of a snapshot) at the next quiet moment. */
let unpackLater = null;

/** What the snapshot maker needs, kept after a normal load; null once started or when not wanted. */
let maker = null;
/** The labs and seeds this visit opened, latest last: the snapshot keeps a fresh session of each. */
const visited = [];
const VISITED_KEPT = 3;
let idleTimer = null;

/** Reads the next lab file, then imports the next command family; false once all are done. */
let warmNext = null;
/** Until a command has run (or a family has been imported), warming waits for this much quiet, so that it
 * never delays a first command typed at once; from then on it goes on at each quiet moment. */
const WARM_AFTER_IDLE_MS = 1000;
let warmStarted = false;
let warmTimer = null;

/** The runtime is loaded: `next` imports one command family a call, a call a task. */
export function warmWhenQuiet(next) {
  warmNext = next;
}

/** One family; the next one in a task of its own, so that a request that came meanwhile goes first. A family
 * that fails to import stops the warming: its first command imports it again and reports the error. */
function warmStep() {
  warmStarted = true;
  try {
    if (warmNext && !warmNext()) warmNext = null;
  } catch {
    warmNext = null;
  }
  if (warmNext) warmTimer = setTimeout(warmStep, 0);
}

export function visit(lab, seed) {
  const entry = [typeof lab === "string" ? lab : null, Number.isSafeInteger(seed) ? seed : 0];
  const at = visited.findIndex(([l, s]) => l === entry[0] && s === entry[1]);
  if (at >= 0) visited.splice(at, 1);
  visited.push(entry);
  if (visited.length > VISITED_KEPT) visited.shift();
}

/** After a restore: `unpack` runs at the next quiet moment. */
export function unpackWhenQuiet(unpack) {
  unpackLater = unpack;
}

/** After a normal load: the snapshot is made from {indexURL, stdLibURL, wheel, key} once the terminal has been idle. */
export function makeWhenQuiet(what) {
  maker = what;
}

/** A message came: the terminal is in use, so the snapshot and the warming wait for the next quiet moment. */
export function inUse() {
  clearTimeout(idleTimer);
  clearTimeout(warmTimer);
}

/** After each request: background work waits for the terminal to be quiet (the first command done). */
export function whenQuiet(handled) {
  clearTimeout(idleTimer);
  if (unpackLater) {
    const unpack = unpackLater;
    unpackLater = null;
    setTimeout(unpack, handled === Msg.RUN ? 0 : UNPACK_AFTER_IDLE_MS);
  }
  if (maker) idleTimer = setTimeout(startMaker, MAKE_AFTER_IDLE_MS);
  if (handled === Msg.RUN) warmStarted = true;
  clearTimeout(warmTimer);
  // Only a finished line lets warming go on at once. After PREPARE the next page's OPEN is on its way
  // (Material is fetching the page), and after OPEN the line typed before it opened follows its READY: a
  // family's import started meanwhile would hold either up, so warming waits for quiet.
  const soon = warmStarted && handled === Msg.RUN;
  if (warmNext) warmTimer = setTimeout(warmStep, soon ? 0 : WARM_AFTER_IDLE_MS);
}

function startMaker() {
  const { indexURL, stdLibURL, wheel, key } = maker;
  maker = null;
  let child;
  try {
    child = new Worker(new URL("./maker.js", import.meta.url), { type: "module" });
  } catch (error) {
    post({ type: Msg.SAVED, stored: false, reason: `no worker for the snapshot (${describe(error)})` });
    return;
  }
  child.addEventListener("message", (event) => {
    child.terminate();
    post({ type: Msg.SAVED, key, ...event.data });
  });
  child.addEventListener("error", (event) => {
    event.preventDefault();
    child.terminate();
    post({ type: Msg.SAVED, stored: false, reason: event.message || "the snapshot worker failed" });
  });
  child.postMessage({ indexURL, stdLibURL, wheel, key, visited }, [wheel]);
}
