/**
 * Per-lab persistence in localStorage, with a schema version.
 *
 * One record per lab and seed: the command history, the session snapshot
 * (from the worker's SNAPSHOT), the recent scrollback, bounded. A record that
 * cannot be read or has another schema is dropped, and the terminal starts
 * fresh with a short notice instead of breaking.
 *
 * When the browser's storage is full, a record keeps what fits and the
 * learner is told once (FULL_NOTICE); the labs solved are never cut.
 *
 * Apart from them, the labs solved in this browser (SOLVES_KEY): lab id →
 * {seed, hints, attempts} of its solve with the fewest hints, for the bar's
 * badge and the labs page (main.js marks the table); and the student's name
 * (STUDENT_KEY) a `?student=` link gave, which the terminal exports as
 * $STUDENT for the completion codes.
 */

export const SCHEMA = 1;
const PREFIX = "mdx-terminal:";
export const MAX_HISTORY = 500;
export const MAX_SAVED_SCROLLBACK = 65536;

export const STALE_NOTICE =
  "The saved terminal for this lab could not be read (it may be from an older version of this site), " +
  "so this is a fresh start.";

export function storageKey(lab, seed) {
  return `${PREFIX}${lab}:${seed}`;
}

function fresh(lab, seed) {
  return { schema: SCHEMA, lab, seed, history: [], state: null, scrollback: [] };
}

export function valid(record, lab, seed) {
  return (
    record !== null &&
    typeof record === "object" &&
    record.schema === SCHEMA &&
    record.lab === lab &&
    record.seed === seed &&
    Array.isArray(record.history) &&
    record.history.every((line) => typeof line === "string") &&
    (record.state === null || typeof record.state === "string") &&
    Array.isArray(record.scrollback) &&
    record.scrollback.every((c) => Array.isArray(c) && c.length === 2 && typeof c[1] === "string")
  );
}

/** {record, notice}: the saved record, or a fresh one with a notice if the saved one was unusable. */
export function load(lab, seed) {
  let raw = null;
  try {
    raw = localStorage.getItem(storageKey(lab, seed));
  } catch {
    return { record: fresh(lab, seed), notice: null };
  }
  if (raw === null) return { record: fresh(lab, seed), notice: null };
  try {
    const record = JSON.parse(raw);
    if (valid(record, lab, seed)) return { record, notice: null };
  } catch {
    // fall through to a fresh start
  }
  forget(lab, seed);
  return { record: fresh(lab, seed), notice: STALE_NOTICE };
}

/**
 * What the learner reads, once a visit, when the record no longer fits in this browser's storage
 * (storage.js then keeps what fits: older output goes first, then older lines, never the lab progress).
 */
export const FULL_NOTICE =
  "This browser's storage for the site is full, so the saved terminal keeps only what fits: older output " +
  "first, then older lines, never your lab progress. To keep your progress elsewhere, type progress export.";

/** Whether this visit has said FULL_NOTICE. */
let fullSaid = false;

/** First words of the lines that carry lab progress (hints taken, answers submitted): never cut. */
const PROGRESS_WORDS = new Set(["lab", "hint", "submit", "solutions"]);

function isQuota(error) {
  return error instanceof DOMException && (error.name === "QuotaExceededError" || error.code === 22 || error.code === 1014);
}

/** Write the record; true if it was stored. Throws only when storage is full (QuotaExceededError). */
function write(record) {
  try {
    localStorage.setItem(storageKey(record.lab, record.seed), JSON.stringify(record));
    return true;
  } catch (error) {
    if (isQuota(error)) throw error;
    return false; // storage disabled: the terminal keeps working without it
  }
}

function tryWrite(record) {
  try {
    return write(record);
  } catch {
    return false;
  }
}

/**
 * Cut the record until it fits: the saved output, oldest half first, then the session's journal and
 * history, oldest half first, keeping the lines that carry lab progress. True once it was stored.
 */
function fit(record) {
  while (record.scrollback.length) {
    record.scrollback = record.scrollback.slice(Math.ceil(record.scrollback.length / 2));
    if (tryWrite(record)) return true;
  }
  let state = null;
  try {
    state = record.state === null ? null : JSON.parse(record.state);
  } catch {
    state = null;
  }
  let journal = state && Array.isArray(state.journal) ? state.journal : [];
  const progress = (entry) => PROGRESS_WORDS.has(String(entry[0]).trim().split(/\s+/)[0]);
  for (;;) {
    const cuttable = journal.filter((entry, i) => i < journal.length - 1 && !progress(entry));
    if (!cuttable.length && record.history.length <= 1) return false;
    const cut = new Set(cuttable.slice(0, Math.ceil(cuttable.length / 2)));
    journal = journal.filter((entry) => !cut.has(entry));
    record.history = record.history.slice(Math.floor(record.history.length / 2));
    if (state) {
      state.journal = journal;
      if (Array.isArray(state.history) && state.history.length > 1) {
        const dropped = Math.floor(state.history.length / 2);
        state.history = state.history.slice(dropped);
        state.history_base = (Number(state.history_base) || 0) + dropped;
      }
      record.state = JSON.stringify(state);
    }
    if (tryWrite(record)) return true;
  }
}

/**
 * Save the record, bounded. When the browser's storage is full, keep what fits (fit) and give back
 * FULL_NOTICE the first time in this visit, for the terminal to show; otherwise null.
 */
export function save(record) {
  record.history = record.history.slice(-MAX_HISTORY);
  let size = 0;
  let keep = record.scrollback.length;
  while (keep > 0 && size + record.scrollback[keep - 1][1].length <= MAX_SAVED_SCROLLBACK) {
    size += record.scrollback[keep - 1][1].length;
    keep -= 1;
  }
  record.scrollback = record.scrollback.slice(keep);
  try {
    write(record);
    return null;
  } catch {
    fit(record);
  }
  if (fullSaid) return null;
  fullSaid = true;
  return FULL_NOTICE;
}

/** Where the labs solved in this browser are kept. */
export const SOLVES_KEY = `${PREFIX}solved`;

/** {lab id: {seed, hints, attempts}}: the labs solved in this browser ({} if none or unreadable). */
export function solves() {
  try {
    const kept = JSON.parse(localStorage.getItem(SOLVES_KEY) || "{}");
    return kept && typeof kept === "object" && !Array.isArray(kept) ? kept : {};
  } catch {
    return {};
  }
}

/** Keep a solve of `lab`, unless one with fewer hints is kept. */
export function recordSolve(lab, seed, { hints, attempts }) {
  const kept = solves();
  const before = kept[lab];
  if (before && Number(before.hints) <= hints) return;
  kept[lab] = { seed, hints, attempts };
  try {
    localStorage.setItem(SOLVES_KEY, JSON.stringify(kept));
  } catch {
    // Storage full or disabled: the badge still shows on this page.
  }
}

export function forget(lab, seed) {
  try {
    localStorage.removeItem(storageKey(lab, seed));
  } catch {
    // nothing to forget
  }
}

/** The student's name a `?student=NAME` link gave (trimmed, inner spaces collapsed, at most 64 characters). */
export const STUDENT_KEY = `${PREFIX}student`;

export function cleanStudent(name) {
  return String(name ?? "").split(/\s+/).filter(Boolean).join(" ").slice(0, 64);
}

/** The name kept for this browser, or "". */
export function student() {
  try {
    return cleanStudent(localStorage.getItem(STUDENT_KEY));
  } catch {
    return "";
  }
}

/** Keep `name` as this browser's student name (an empty one is not kept). */
export function setStudent(name) {
  const clean = cleanStudent(name);
  if (!clean) return;
  try {
    localStorage.setItem(STUDENT_KEY, clean);
  } catch {
    // storage off: the name still goes to this page's terminal
  }
}
