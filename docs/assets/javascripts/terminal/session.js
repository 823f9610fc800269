/**
 * The terminal's emulator session, over its life: opened once the runtime is
 * ready (rejoined after instant navigation, reopened from its saved state
 * after a restart), saved after every line (and when the page is hidden or
 * left), reset on request. It also shows
 * the runtime's state, as client.js reports it, in the status line.
 */

import { runtime } from "./client.js";
import { Msg, Stage } from "./protocol.js";
import * as store from "./storage.js";
import { variantLabel } from "./labbar.js";

/**
 * Sessions opened during this visit, by lab and seed, kept across instant
 * navigation, most recently used last. The worker keeps at most eight open
 * (emulator.web.SESSION_LIMIT) and closes the least recently used; this map
 * forgets sooner, so a page never rejoins a closed session: it reopens it
 * from its saved state instead.
 */
const sessions = new Map();
const REMEMBERED_SESSIONS = 6;

function remember(key, session) {
  sessions.delete(key);
  sessions.set(key, session);
  while (sessions.size > REMEMBERED_SESSIONS) sessions.delete(sessions.keys().next().value);
}
runtime.listen(({ restarted }) => {
  if (restarted) sessions.clear();
});

function megabytes(n) {
  return (n / 1048576).toFixed(1);
}

export class Session {
  /** `notices`: sentences for the learner, printed once the session is open. */
  constructor(terminal, notices) {
    this.terminal = terminal;
    this.status = terminal.q("[data-mdx-status]");
    this.sid = null;
    this.opening = false;
    this.notices = notices;
    /** Whether a save waits for the session's snapshot, the record not stored yet. */
    this.unsaved = false;
  }

  /** Hear the runtime from now on, beginning with its state now; `unlisten()` stops. */
  listen() {
    const unlisten = runtime.listen((event) => this.onRuntime(event));
    // The page hidden or left before a save's snapshot came back: the lines typed are stored all the same
    // (only then: another tab's terminal of the same lab may have stored a newer record since).
    const leaving = () => {
      if (this.unsaved) this.persist();
    };
    const hidden = () => {
      if (document.visibilityState === "hidden") leaving();
    };
    addEventListener("pagehide", leaving);
    document.addEventListener("visibilitychange", hidden);
    this.unlisten = () => {
      leaving(); // the next page's terminal of this lab reads the record at once
      unlisten();
      removeEventListener("pagehide", leaving);
      document.removeEventListener("visibilitychange", hidden);
    };
    this.onRuntime({ state: runtime.state, progress: runtime.progress, failure: runtime.failure,
                     origin: runtime.origin, saved: runtime.saved });
  }

  onRuntime({ state, progress, failure, restarted, origin, note, saved }) {
    const { el, editor, runner } = this.terminal;
    if (this.terminal.disposed) return;
    el.dataset.mdxState = state;
    this.markStartup(origin, note, saved);
    if (restarted) {
      this.sid = null;
      el.dataset.mdxOpen = "false";
      this.opening = false;
      runner.lost();
    }
    if (state === "failed") {
      this.showStatus(failure, true);
      editor.input.placeholder = "The terminal is unavailable";
      return;
    }
    if (state === "idle") {
      this.showStatus("The terminal starts when the page is idle or when you click into it.");
      return;
    }
    if (state === "loading") {
      let text = `${progress ? progress.stage : Stage.MANIFEST}…`;
      if (progress && progress.total) text += ` ${megabytes(progress.loaded)} of ${megabytes(progress.total)} MB`;
      if (runner.queue.length) text += ` (${runner.queue.length} queued)`;
      this.showStatus(text);
    }
    if (state === "ready" && this.sid !== null) this.showStatus("");
    this.open();
  }

  /** How the runtime started ("snapshot" or "fresh") and whether a snapshot was stored, as attributes. */
  markStartup(origin, note, saved) {
    const { el, scrollback } = this.terminal;
    if (origin) el.dataset.mdxRuntime = origin;
    if (saved) el.dataset.mdxSnapshot = saved.stored ? "stored" : "not-stored";
    if (note && !runtime.noteShown) {
      // Said once per visit, by the terminal that hears it first.
      runtime.noteShown = true;
      if (this.sid !== null) scrollback.print("err", `${note}\n`);
      else this.notices.push(note);
    }
  }

  showStatus(text, failed = false) {
    this.status.textContent = text;
    this.status.hidden = !text;
    this.status.classList.toggle("mdx-terminal__status--failed", failed);
  }

  /** Open (or rejoin) this terminal's session. */
  open() {
    if (this.sid !== null || this.opening) return;
    const { key, record, scrollback } = this.terminal;
    const known = sessions.get(key);
    if (known) {
      remember(key, known);
      this.ready(known, false);
      return;
    }
    this.opening = true;
    const state = record.state;
    runtime.request(
      { type: Msg.OPEN, lab: this.terminal.lab, seed: this.terminal.seed, state, student: this.terminal.student },
      {
        onReady: (m) => {
          this.opening = false;
          const { sid, prompt, lab, seed, title, goal, solved } = m;
          remember(key, { sid, prompt, lab, seed, title, goal, solved }); // even if this page has gone meanwhile
          this.ready(m, state === null);
          if (m.notice) scrollback.print("err", `${m.notice}\n`);
        },
        onError: (message) => {
          this.opening = false;
          if (state !== null) {
            // The saved session could not be restored: start fresh, say so.
            record.state = null;
            this.notices.push(store.STALE_NOTICE);
            this.open();
          } else {
            this.showStatus(`The terminal could not open this lab: ${message}`, true);
          }
        },
      },
    );
  }

  /** The session is open: `opened` is open_session's report, or the one remembered for this page. */
  ready(opened, fresh, said = "") {
    const { el, editor, bar, scrollback, runner } = this.terminal;
    if (this.terminal.disposed) return;
    performance.mark(performance.getEntriesByName("mdx:session-open").length ? "mdx:session-ready" : "mdx:session-open");
    this.sid = opened.sid;
    el.dataset.mdxOpen = "true";
    editor.setPrompt(opened.prompt);
    bar.follow(opened);
    this.keep();
    this.showStatus("");
    if (fresh && opened.banner) scrollback.prose(opened.banner.endsWith("\n") ? opened.banner : `${opened.banner}\n`);
    scrollback.print("out", said);
    for (const notice of this.notices.splice(0)) scrollback.print("err", `${notice}\n`);
    runner.drain();
  }

  /** Remember this page's session, for the next page of the same lab and seed (instant navigation). */
  keep() {
    const { key, editor, bar } = this.terminal;
    if (this.sid !== null) remember(key, { sid: this.sid, prompt: editor.prompt, ...bar.now });
  }

  /** The worker closed this session to save memory: the next open reopens it from its saved state. */
  closed() {
    sessions.delete(this.terminal.key);
    this.sid = null;
    this.terminal.el.dataset.mdxOpen = "false";
  }

  /** Store the record as it is now; when storage is full, say so once (storage.js keeps what fits). */
  persist() {
    this.unsaved = false;
    const notice = store.save(this.terminal.record);
    if (notice && !this.terminal.disposed) this.terminal.scrollback.print("err", `${notice}\n`);
  }

  /**
   * Save history, scrollback and the session's state; then `then()`, if given. With a session open, the
   * record is stored once, with the state the worker answers (a few milliseconds later, off the line's way
   * to the screen); a page hidden or left meanwhile stores it as it is (listen).
   */
  save(then = null) {
    const { record } = this.terminal;
    if (this.sid === null) {
      this.persist();
      if (then) then();
      return;
    }
    this.unsaved = true;
    runtime.request(
      { type: Msg.SNAPSHOT, sid: this.sid },
      {
        onDone: (m) => {
          record.state = m.state;
          this.persist();
          if (then) then();
        },
        onError: () => {
          this.persist();
          if (then) then();
        },
      },
    );
  }

  /** Open the session again from the record as it is now (an import replaced it). */
  reopen() {
    sessions.delete(this.terminal.key);
    this.sid = null;
    this.terminal.el.dataset.mdxOpen = "false";
    this.open();
  }

  reset() {
    const { record, scrollback, runner } = this.terminal;
    runner.drop();
    record.state = null;
    record.scrollback = [];
    this.persist();
    if (this.sid === null) {
      scrollback.clear();
      return;
    }
    runtime.request(
      { type: Msg.RESET, sid: this.sid, student: this.terminal.student },
      {
        onReady: (m) => {
          scrollback.clear();
          this.sid = null;
          this.ready(m, true, `Reset to a fresh ${variantLabel(m.lab || "sandbox", m.seed)}.\n`);
          this.save();
        },
        onError: (message) => scrollback.print("err", `${message}\n`),
      },
    );
  }
}
