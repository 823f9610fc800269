/**
 * The protocol between a page's terminal and the emulator worker.
 *
 * One message-type enum and one shape per message. Requests carry an `id`
 * chosen by the page; every reply to a request carries the same `id`.
 *
 * Page → worker
 *   {type: OPEN,      id, lab, seed, state, student}   state: a snapshot string or null; student: the name
 *                                         a ?student= link gave ($STUDENT in the session), or ""
 *   {type: RUN,       id, sid, line, columns, solves}   columns: the terminal's width in characters
 *                                         (the shell's COLUMNS); solves: {lab: {seed, hints, attempts}} solved in this browser
 *   {type: INTERRUPT, sid}                    no reply of its own: the run ends
 *   {type: PREPARE,   path}                   no reply: an in-site link to `path` (a URL path) was clicked;
 *                                         the worker builds that page's lab session (the manifest's `pages`)
 *   {type: COMPLETE,  id, sid, line}
 *   {type: SNAPSHOT,  id, sid}
 *   {type: RESET,     id, sid, student}
 *   {type: PAINTED}                           no reply: the page has painted its content (prestart.js), so the
 *                                         runtime's heavy start may begin (a worker started with ?paint=wait)
 *   {type: PING,      id}                     the watchdog's question while a line runs: is the worker answering?
 *   {type: STALL,     id, ms}                 test hook only (tests/e2e/test_watchdog.py): the worker computes for
 *                                         `ms` without answering, as a command that never ends would
 *   {type: VERIFY,    id, codes, workshop}    completion codes (strings) to check by replay; workshop or null
 *
 * Worker → page
 *   {type: PROGRESS,   stage, loaded, total}  while the runtime loads (bytes, or 0)
 *   {type: LOADED,     runtime, note, reason, ms}   once, when the runtime has loaded: runtime is
 *                                         "snapshot" (restored) or "fresh"; note: a sentence for the
 *                                         learner or null; reason: why no snapshot was restored
 *   {type: SAVED,      stored, reason, bytes, ms}   once, when a snapshot was made (or could not be)
 *   {type: READY,      id, sid, banner, prompt, lab, seed, title, goal, solved, objectives, notice}   reply
 *                                         to OPEN and RESET; solved: {hints, attempts} once the session solved
 *                                         the lab it is in, else null; objectives: [{text, done}] the lab's
 *                                         reference steps, done once the learner's output showed the evidence
 *   {type: OUTPUT,     id, chunks}            chunks: [[kind, text], ...] of a RUN; kind is one of Chunk
 *   {type: DONE,       id, status, prompt, state, more, lab, seed, title, goal, solved, objectives, request}
 *                                         end of a RUN (state null) or reply to SNAPSHOT (state: the snapshot) and VERIFY (state:
 *                                         the verdicts as JSON, emulator.web.verify); more: true when the RUN's text needs
 *                                         another line (not run); lab..goal: the lab the session is in
 *                                         after the RUN (a `lab start` changes it); request: [action, path] when
 *                                         the RUN asked the page for a file (`progress export|import`), else null
 *   {type: COMPLETION, id, start, matches, common}
 *   {type: PONG,       id}                    reply to PING
 *   {type: ERROR,      id, message}           one request failed; the runtime is fine
 *   {type: FATAL,      message}               the runtime cannot start or has died
 *   {type: TRACE,      marks}                 [[name, ms since the epoch], ...]: when the worker received, began
 *                                         and ended a request, for the page's
 *                                         performance marks (mdx:worker-...)
 */

export const Msg = Object.freeze({
  OPEN: "open",
  RUN: "run",
  INTERRUPT: "interrupt",
  PREPARE: "prepare",
  COMPLETE: "complete",
  SNAPSHOT: "snapshot",
  RESET: "reset",
  PING: "ping",
  PONG: "pong",
  STALL: "stall",
  PAINTED: "painted",
  VERIFY: "verify",
  TRACE: "trace",
  READY: "ready",
  PROGRESS: "progress",
  OUTPUT: "output",
  DONE: "done",
  COMPLETION: "completion",
  ERROR: "error",
  FATAL: "fatal",
  LOADED: "loaded",
  SAVED: "saved",
});

/** The kinds of an OUTPUT chunk (emulator.web.step). */
export const Chunk = Object.freeze({
  OUT: "out", // a tool's standard output
  ERR: "err", // a tool's standard error
  TIP: "tip", // a hint of this terminal, not tool output (a GPU tool on a host without GPUs)
  OK: "ok", // a verdict: submit solved the lab
});

/** Loading stages, in order, as the worker reports them in PROGRESS. */
export const Stage = Object.freeze({
  MANIFEST: "Reading the runtime manifest",
  RUNTIME: "Downloading the Python runtime",
  STARTING: "Starting Python",
  RESTORING: "Restoring the saved Python runtime",
  WHEEL: "Installing the emulator",
  SESSION: "Opening the session",
});

/** How long the runtime may take to become ready before the page gives up. */
export const LOAD_TIMEOUT_MS = 30000;

/**
 * How long a running command's worker may go without answering (no output, no reply to the watchdog's
 * PING) before the page stops it, restarts the runtime and restores the session without that line.
 * emulator.limits.COMMAND_TIME_LIMIT_S gives the command line the same time.
 */
export const WATCHDOG_MS = 10000;

/** The longest real pause between two chunks of a streaming command. */
export const MAX_PAUSE_MS = 1000;
