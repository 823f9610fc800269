/**
 * Per-lab persistence in localStorage, with a schema version.
 *
 * One record per lab and seed: the command history, the session snapshot
 * (from the worker's SNAPSHOT), the recent scrollback, bounded. A record that
 * cannot be read or has another schema is dropped, and the terminal starts
 * fresh with a short notice instead of breaking.
 *
 * Apart from them, the labs solved in this browser (SOLVES_KEY): lab id →
 * {seed, hints, attempts} of its solve with the fewest hints, for the bar's
 * badge and the labs page (main.js marks the table).
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
    localStorage.setItem(storageKey(record.lab, record.seed), JSON.stringify(record));
  } catch {
    // Storage full or disabled: the terminal keeps working without it.
  }
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
