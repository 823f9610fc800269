/**
 * The progress file: everything this site keeps about a learner in this browser, as one JSON file.
 *
 * `collect(store)` gathers the terminals' records of storage.js (one per lab
 * and seed: history, the session's journal as its snapshot, recent
 * scrollback) and the labs solved (seed, hints, attempts), under a format name
 * and a schema version, and the student's name a `?student=` link gave
 * (`student`, left out when none). `merge(store, text)` reads such a file and adds it to
 * what the browser holds: a record this browser lacks is added, one it holds
 * is kept unless the file's has more lines typed, and a solve is kept with
 * the fewest hints; its student name is kept if this browser has none. The file is checked whole before anything is written:
 * a corrupt, foreign or newer file is refused with a message and nothing
 * stored changes; a write that fails puts back what was there.
 */

import { SCHEMA as RECORD_SCHEMA, SOLVES_KEY, STUDENT_KEY, cleanStudent, storageKey, valid } from "../terminal/storage.js";

export const FORMAT = "gpu-cluster-handbook-progress";
export const SCHEMA = 1;
const RECORD_KEY = /^mdx-terminal:([a-z0-9][a-z0-9-]*):(\d+)$/;

/** A refused file: the message says why, in the learner's words. */
export class ProgressFileError extends Error {}

/** The progress file's object: {format, schema, solved, terminals: [record, ...]}. */
export function collect(store) {
  const terminals = [];
  for (let i = 0; i < store.length; i += 1) {
    const key = store.key(i);
    const match = key && RECORD_KEY.exec(key);
    if (!match) continue;
    try {
      const record = JSON.parse(store.getItem(key));
      if (valid(record, match[1], Number(match[2]))) terminals.push(record);
    } catch {
      // an unreadable record is not progress: storage.js drops it when its terminal opens
    }
  }
  terminals.sort((a, b) => (a.lab === b.lab ? a.seed - b.seed : a.lab < b.lab ? -1 : 1));
  const student = cleanStudent(store.getItem(STUDENT_KEY));
  return { format: FORMAT, schema: SCHEMA, solved: solvedIn(store), terminals, ...(student ? { student } : {}) };
}

function solvedIn(store) {
  try {
    const kept = JSON.parse(store.getItem(SOLVES_KEY) || "{}");
    return kept && typeof kept === "object" && !Array.isArray(kept) ? kept : {};
  } catch {
    return {};
  }
}

function validSolve(solve) {
  return (
    solve !== null && typeof solve === "object" && Number.isSafeInteger(solve.seed) && solve.seed >= 0 &&
    Number.isSafeInteger(solve.hints) && solve.hints >= 0 && Number.isSafeInteger(solve.attempts) && solve.attempts >= 0
  );
}

/** The file's object, checked whole (throws ProgressFileError saying why it cannot be used). */
export function read(text) {
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    throw new ProgressFileError("This file is not a progress file: it is not readable JSON (it may be cut short or damaged).");
  }
  if (data === null || typeof data !== "object" || data.format !== FORMAT) {
    throw new ProgressFileError("This file is not a progress file of this site.");
  }
  if (Number.isSafeInteger(data.schema) && data.schema > SCHEMA) {
    throw new ProgressFileError(
      `This progress file was made by a newer version of this site (schema ${data.schema}; this one reads ${SCHEMA}). ` +
        "Import it where it was made, or on a copy of the site as new.");
  }
  const damaged = new ProgressFileError("This progress file is damaged: part of it cannot be read.");
  if (data.schema !== SCHEMA || !Array.isArray(data.terminals) || data.solved === null ||
      typeof data.solved !== "object" || Array.isArray(data.solved) ||
      (data.student !== undefined && typeof data.student !== "string")) throw damaged;
  for (const record of data.terminals) {
    if (!record || record.schema !== RECORD_SCHEMA || !valid(record, record.lab, record.seed) ||
        !RECORD_KEY.test(storageKey(record.lab, record.seed))) throw damaged;
  }
  for (const [lab, solve] of Object.entries(data.solved)) {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(lab) || !validSolve(solve)) throw damaged;
  }
  return data;
}

/** Merge a progress file's text into `store`; {terminals, solved}: how many of each were added or replaced. */
export function merge(store, text) {
  const data = read(text);
  const writes = new Map();
  let terminals = 0;
  for (const record of data.terminals) {
    const key = storageKey(record.lab, record.seed);
    let mine = null;
    try {
      mine = JSON.parse(store.getItem(key));
    } catch {
      mine = null;
    }
    if (valid(mine, record.lab, record.seed) && mine.history.length >= record.history.length) continue;
    writes.set(key, JSON.stringify(record));
    terminals += 1;
  }
  const solved = solvedIn(store);
  let solves = 0;
  for (const [lab, solve] of Object.entries(data.solved)) {
    const before = Object.hasOwn(solved, lab) ? solved[lab] : null;
    if (before && Number(before.hints) <= solve.hints) continue;
    solved[lab] = { seed: solve.seed, hints: solve.hints, attempts: solve.attempts };
    solves += 1;
  }
  if (solves) writes.set(SOLVES_KEY, JSON.stringify(solved));
  const student = cleanStudent(data.student);
  if (student && !cleanStudent(store.getItem(STUDENT_KEY))) writes.set(STUDENT_KEY, student);
  const previous = new Map([...writes.keys()].map((key) => [key, store.getItem(key)]));
  try {
    for (const [key, value] of writes) store.setItem(key, value);
  } catch {
    for (const [key, value] of previous) {
      if (value === null) store.removeItem(key);
      else store.setItem(key, value);
    }
    throw new ProgressFileError("This browser's storage is full or turned off: nothing was imported.");
  }
  return { terminals, solved: solves };
}
