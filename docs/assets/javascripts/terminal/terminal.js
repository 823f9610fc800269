/**
 * One page's terminal: scrollback, the command line and its keys, the lab
 * panel and controls. Python decides what a line means; this file only draws,
 * keeps history and forwards keys to the worker through client.js.
 *
 * Output is always inserted as text (textContent), never as HTML.
 */

import { runtime } from "./client.js";
import { Msg, Stage } from "./protocol.js";
import * as store from "./storage.js";
import { bigWordLeft, columns, searchBack, splitPaste, wordLeft, wordRight } from "./lineedit.js";

/** Characters kept in the on-screen scrollback; older output is dropped. */
export const MAX_SCROLLBACK = 200000;
/** Characters of one command's output read out by the live region. */
const MAX_ANNOUNCE = 1500;
/** More completion candidates than this are listed only after a y (bash's completion-query-items). */
const ASK_ABOVE = 100;
/** How long an interrupted command may take to stop before the runtime restarts. */
const INTERRUPT_GRACE_MS = 4000;
const DEFAULT_PROMPT = "alice@login01:~$ ";
/** The prompt for the next line of an unfinished command (bash's PS2). */
const CONTINUATION = "> ";
/** The escape sequence of a full-screen repaint, and every other control sequence (dropped). */
const CLEAR_SCREEN = "\x1b[2J";
const CONTROL = /\x1b\[[0-9;?]*[A-Za-z]/g;

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

/** How the bar names a lab and seed: "lab late-rank · seed 7", or "healthy cluster". */
export function variantLabel(lab, seed) {
  return (lab === "sandbox" ? "healthy cluster" : `lab ${lab}`) + (seed ? ` · seed ${seed}` : "");
}

/** An element with text and dataset entries; `attributes` go through setAttribute. */
function element(tag, text, dataset = {}, attributes = {}) {
  const made = document.createElement(tag);
  if (text) made.textContent = text;
  Object.assign(made.dataset, dataset);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  return made;
}

function megabytes(n) {
  return (n / 1048576).toFixed(1);
}

export class Terminal {
  constructor(el, { lab, seed, notice = null }) {
    this.el = el;
    this.lab = lab;
    this.seed = seed;
    this.key = `${lab}:${seed}`;
    /** The lab the session is in now ({lab, seed, title, goal}); `lab start` changes it. */
    this.now = { lab, seed };
    this.shown = null;
    this.q = (selector) => el.querySelector(selector);
    this.output = this.q("[data-mdx-output]");
    this.screen = this.q("[data-mdx-screen]");
    this.input = this.q("[data-mdx-input]");
    this.promptEl = this.q("[data-mdx-prompt]");
    this.status = this.q("[data-mdx-status]");
    this.live = this.q("[data-mdx-live]");
    this.sid = null;
    this.prompt = DEFAULT_PROMPT;
    this.busy = null;
    this.queue = [];
    this.killed = "";
    this.search = null;
    this.tabReleased = false;
    this.pendingList = null;
    this.pending = [];
    this.size = 0;
    this.disposed = false;
    this.opening = false;

    const loaded = store.load(lab, seed);
    this.record = loaded.record;
    this.histPos = this.record.history.length;
    this.draft = "";
    this.notices = [notice, loaded.notice].filter(Boolean);

    el.dataset.mdxState = "idle";
    this.setPrompt(this.prompt);
    for (const [stream, text] of this.record.scrollback) this.draw(stream, text);
    this.wire();
    this.unlisten = runtime.listen((event) => this.onRuntime(event));
    this.onRuntime({ state: runtime.state, progress: runtime.progress, failure: runtime.failure,
                     origin: runtime.origin, saved: runtime.saved });
  }

  dispose() {
    this.disposed = true;
    this.unlisten();
    if (this.busy) {
      runtime.interrupt(this.sid);
      runtime.forget(this.busy.id);
      clearTimeout(this.busy.timer);
      this.busy = null;
    }
  }

  // -- runtime ------------------------------------------------------------------

  onRuntime({ state, progress, failure, restarted, origin, note, saved }) {
    if (this.disposed) return;
    this.el.dataset.mdxState = state;
    this.markStartup(origin, note, saved);
    if (restarted) {
      this.sid = null;
      this.el.dataset.mdxOpen = "false";
      this.opening = false;
      if (this.busy) {
        clearTimeout(this.busy.timer);
        this.busy = null;
      }
    }
    if (state === "failed") {
      this.showStatus(failure, true);
      this.input.placeholder = "The terminal is unavailable";
      return;
    }
    if (state === "idle") {
      this.showStatus("The terminal starts when the page is idle or when you click into it.");
      return;
    }
    if (state === "loading") {
      let text = `${progress ? progress.stage : Stage.MANIFEST}…`;
      if (progress && progress.total) text += ` ${megabytes(progress.loaded)} of ${megabytes(progress.total)} MB`;
      if (this.queue.length) text += ` (${this.queue.length} queued)`;
      this.showStatus(text);
    }
    if (state === "ready" && this.sid !== null) this.showStatus("");
    this.open();
  }

  /** How the runtime started ("snapshot" or "fresh") and whether a snapshot was stored, as attributes. */
  markStartup(origin, note, saved) {
    if (origin) this.el.dataset.mdxRuntime = origin;
    if (saved) this.el.dataset.mdxSnapshot = saved.stored ? "stored" : "not-stored";
    if (note && !runtime.noteShown) {
      // Said once per visit, by the terminal that hears it first.
      runtime.noteShown = true;
      if (this.sid !== null) this.print("err", `${note}\n`);
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
    const known = sessions.get(this.key);
    if (known) {
      remember(this.key, known);
      this.ready(known, false);
      return;
    }
    this.opening = true;
    const state = this.record.state;
    runtime.request(
      { type: Msg.OPEN, lab: this.lab, seed: this.seed, state },
      {
        onReady: (m) => {
          this.opening = false;
          const { sid, prompt, lab, seed, title, goal } = m;
          remember(this.key, { sid, prompt, lab, seed, title, goal }); // even if this page has gone meanwhile
          this.ready(m, state === null);
          if (m.notice) this.print("err", `${m.notice}\n`);
        },
        onError: (message) => {
          this.opening = false;
          if (state !== null) {
            // The saved session could not be restored: start fresh, say so.
            this.record.state = null;
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
    if (this.disposed) return;
    this.sid = opened.sid;
    this.el.dataset.mdxOpen = "true";
    this.setPrompt(opened.prompt);
    this.follow(opened);
    this.keep();
    this.showStatus("");
    if (fresh && opened.banner) this.print("out", opened.banner.endsWith("\n") ? opened.banner : `${opened.banner}\n`);
    this.print("out", said);
    for (const notice of this.notices.splice(0)) this.print("err", `${notice}\n`);
    this.drain();
  }

  /** Remember this page's session, for the next page of the same lab and seed (instant navigation). */
  keep() {
    if (this.sid !== null) remember(this.key, { sid: this.sid, prompt: this.prompt, ...this.now });
  }

  // -- the lab panel -----------------------------------------------------------------

  /**
   * Show the lab the session is in now, which `lab start` changes and which a
   * restored session may have switched to: the bar's label, the panel's title,
   * goal and share link. The panel is offered only while a lab runs; a page of
   * the healthy cluster gets one when a lab starts there.
   */
  follow(variant) {
    if (!variant || variant.title === undefined || this.disposed) return;
    const lab = variant.lab || "sandbox";
    const { seed, title, goal } = variant;
    this.now = { lab, seed, title, goal };
    this.keep();
    const shown = JSON.stringify(this.now);
    if (shown === this.shown) return;
    this.shown = shown;
    const label = this.q("[data-mdx-variant]");
    if (label) label.textContent = variantLabel(lab, seed);
    const running = lab !== "sandbox";
    const panel = running ? this.panel() : this.q("[data-mdx-panel]");
    const toggle = this.q('[data-mdx-action="panel"]');
    if (!panel || !toggle) return;
    toggle.hidden = !running;
    if (!running) {
      panel.hidden = true;
      toggle.setAttribute("aria-expanded", "false");
    }
    panel.querySelector("[data-mdx-lab-title]").textContent = title;
    panel.querySelector("[data-mdx-lab-goal]").textContent = goal;
    panel.querySelector("[data-mdx-share]").href = `?lab=${encodeURIComponent(lab)}&seed=${seed}`;
  }

  /** The lab panel and its toggle, made as the page template makes them when the page has none. */
  panel() {
    const found = this.q("[data-mdx-panel]");
    if (found) return found;
    const button = (text, dataset, attributes = {}) =>
      element("button", text, dataset, { type: "button", class: "mdx-terminal__button", ...attributes });
    const toggle = button("Lab panel", { mdxAction: "panel" },
                          { "aria-expanded": "false", "aria-controls": "mdx-terminal-panel" });
    this.q(".mdx-terminal__actions")?.prepend(toggle);
    const panel = element("div", "", { mdxPanel: "" }, { class: "mdx-terminal__panel", id: "mdx-terminal-panel" });
    panel.hidden = true;
    const title = element("p");
    title.append(element("strong", "", { mdxLabTitle: "" }));
    const runs = element("p");
    runs.append(button("Show progress", { mdxRun: "lab" }), " ", button("Next hint", { mdxRun: "hint" }), " ",
                button("Reference procedure", { mdxRun: "solutions" }));
    const share = element("p");
    share.append(element("a", "Link to this lab and seed", { mdxShare: "" }), " (for a bug report or a class)");
    panel.append(title, element("p", "", { mdxLabGoal: "" }), runs, share);
    this.status.before(panel);
    return panel;
  }

  // -- running lines -------------------------------------------------------------

  submit(line) {
    if (line.trim() && this.record.history[this.record.history.length - 1] !== line) {
      this.record.history.push(line);
    }
    this.histPos = this.record.history.length;
    this.draft = "";
    this.queue.push(line);
    runtime.start();
    if (runtime.state === "loading") this.onRuntime({ state: "loading", progress: runtime.progress });
    this.drain();
    if (runtime.state === "failed") store.save(this.record);
  }

  drain() {
    if (this.busy || this.sid === null || !this.queue.length || this.disposed) return;
    const next = this.queue.shift();
    if (typeof next === "string") this.run(next);
    else this.run(next.line, next.echo, true);
  }

  /** Run one line; `echo` is what the screen shows for it (the prompt and the line). */
  run(line, echo = `${this.promptEl.textContent}${line}\n`, retried = false) {
    this.print("cmd", echo);
    const collected = [];
    const busy = { id: 0, timer: null, interrupted: false, retried };
    const text = [...this.pending, line].join("\n");
    this.busy = busy;
    this.el.dataset.mdxBusy = "true";
    busy.id = runtime.request(
      { type: Msg.RUN, sid: this.sid, line: text },
      {
        onOutput: (chunks) => {
          for (const [stream, raw] of chunks) {
            // A full-screen repaint (watch) clears the screen, as a terminal would.
            const cleared = raw.lastIndexOf(CLEAR_SCREEN);
            if (cleared >= 0) {
              this.clear();
              collected.length = 0;
            }
            const text = (cleared >= 0 ? raw.slice(cleared + CLEAR_SCREEN.length) : raw).replace(CONTROL, "");
            collected.push(text);
            this.print(stream === "err" ? "err" : "out", text);
          }
        },
        onDone: (m) => {
          if (m.more) {
            this.pending.push(line);
            this.setPrompt();
          } else {
            this.pending = [];
          }
          this.finish(busy, m.prompt, collected);
          this.follow(m);
        },
        onError: (message) => {
          if (/KeyError/.test(message) && !busy.retried) {
            // The worker closed this session to save memory: reopen it from its saved state, run the line there.
            sessions.delete(this.key);
            this.sid = null;
            this.el.dataset.mdxOpen = "false";
            this.finish(busy, null, collected);
            this.queue.unshift({ line, echo: "" });
            this.open();
            return;
          }
          this.print("err", `${message}\n`);
          this.finish(busy, null, collected);
        },
      },
    );
  }

  finish(busy, prompt, collected) {
    clearTimeout(busy.timer);
    if (this.busy !== busy || this.disposed) return;
    this.busy = null;
    delete this.el.dataset.mdxBusy;
    this.el.dataset.mdxRuns = String(Number(this.el.dataset.mdxRuns || 0) + 1);
    if (prompt) this.setPrompt(prompt);
    this.keep();
    this.announce(collected.join(""));
    this.save();
    this.drain();
  }

  /** Save history, scrollback and the session's state. */
  save() {
    store.save(this.record);
    if (this.sid === null) return;
    runtime.request(
      { type: Msg.SNAPSHOT, sid: this.sid },
      {
        onDone: (m) => {
          this.record.state = m.state;
          store.save(this.record);
        },
      },
    );
  }

  interrupt() {
    const busy = this.busy;
    this.queue = [];
    if (!busy || busy.interrupted) return;
    busy.interrupted = true;
    runtime.interrupt(this.sid);
    busy.timer = setTimeout(() => this.recover(busy), INTERRUPT_GRACE_MS);
  }

  /** A command did not stop: restart the runtime and reopen from the last saved state. */
  recover(busy) {
    if (this.busy !== busy) return;
    this.print(
      "err",
      "The command did not stop, so the terminal restarted its runtime and restored your session from the last saved state.\n",
    );
    this.busy = null;
    delete this.el.dataset.mdxBusy;
    store.save(this.record);
    runtime.restart();
  }

  reset() {
    if (this.busy) this.interrupt();
    this.queue = [];
    this.pending = [];
    this.record.state = null;
    this.record.scrollback = [];
    store.save(this.record);
    if (this.sid === null) {
      this.clear();
      return;
    }
    runtime.request(
      { type: Msg.RESET, sid: this.sid },
      {
        onReady: (m) => {
          this.clear();
          this.sid = null;
          this.ready(m, true, `Reset to a fresh ${variantLabel(m.lab || "sandbox", m.seed)}.\n`);
          this.save();
        },
        onError: (message) => this.print("err", `${message}\n`),
      },
    );
  }

  /** Type commands into the terminal as if entered one after another. */
  type(lines) {
    for (const line of lines) this.submit(line);
    this.input.focus({ preventScroll: true });
    this.el.scrollIntoView({ block: "nearest" });
  }

  // -- drawing ---------------------------------------------------------------------

  setPrompt(prompt) {
    if (prompt) this.prompt = prompt;
    let shown = this.prompt;
    if (this.search) shown = this.searchPrompt();
    else if (this.pending.length) shown = CONTINUATION;
    this.promptEl.textContent = shown;
  }

  print(stream, text) {
    if (!text) return;
    this.draw(stream, text);
    const last = this.record.scrollback[this.record.scrollback.length - 1];
    if (last && last[0] === stream) last[1] += text;
    else this.record.scrollback.push([stream, text]);
  }

  draw(stream, text) {
    const last = this.output.lastChild;
    if (last && last.dataset.stream === stream) {
      last.textContent += text;
    } else {
      const span = document.createElement("span");
      span.dataset.stream = stream;
      span.className = `mdx-terminal__${stream}`;
      span.textContent = text;
      this.output.append(span);
    }
    this.size += text.length;
    while (this.size > MAX_SCROLLBACK && this.output.firstChild) {
      const first = this.output.firstChild;
      const excess = this.size - MAX_SCROLLBACK;
      if (first.textContent.length <= excess || first === this.output.lastChild) {
        const cut = Math.min(excess, first.textContent.length);
        if (cut === first.textContent.length) first.remove();
        else first.textContent = first.textContent.slice(cut);
        this.size -= cut;
      } else {
        first.textContent = first.textContent.slice(excess);
        this.size -= excess;
      }
    }
    this.screen.scrollTop = this.screen.scrollHeight;
  }

  clear() {
    this.output.textContent = "";
    this.size = 0;
    this.record.scrollback = [];
  }

  announce(text) {
    const trimmed = text.length > MAX_ANNOUNCE ? `${text.slice(0, MAX_ANNOUNCE)}… (more in the terminal output)` : text;
    // A new node each time, so the same output twice in a row is announced twice.
    const said = document.createElement("p");
    said.textContent = trimmed.trim() || "Done, no output.";
    this.live.replaceChildren(said);
  }

  /** Terminal width in characters, for laying out completion lists. */
  widthInChars() {
    const probe = document.createElement("span");
    probe.textContent = "0".repeat(10);
    this.output.append(probe);
    const w = probe.getBoundingClientRect().width / 10;
    probe.remove();
    const style = getComputedStyle(this.screen);
    const visible = this.screen.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return w > 0 ? Math.max(20, Math.floor(visible / w)) : 80;
  }

  // -- keys ---------------------------------------------------------------------------

  wire() {
    const input = this.input;
    input.addEventListener("keydown", (e) => this.onKey(e));
    input.addEventListener("paste", (e) => this.onPaste(e));
    input.addEventListener("focus", () => runtime.start(), { once: true });
    this.output.addEventListener("click", () => {
      if (!String(window.getSelection())) input.focus({ preventScroll: true });
    });
    this.el.addEventListener("click", (e) => {
      const action = e.target.closest("[data-mdx-action]")?.dataset.mdxAction;
      const key = e.target.closest("[data-mdx-key]")?.dataset.mdxKey;
      const run = e.target.closest("[data-mdx-run]")?.dataset.mdxRun;
      if (action === "reset") this.confirmReset(e.target.closest("[data-mdx-action]"));
      if (action === "panel") this.togglePanel(e.target.closest("[data-mdx-action]"));
      if (run) this.type([run]);
      if (key) {
        input.focus({ preventScroll: true });
        this.onVirtualKey(key);
      }
    });
    // On-screen keys keep the focus (and the phone's keyboard) on the line.
    for (const button of this.el.querySelectorAll("[data-mdx-key]")) {
      button.addEventListener("pointerdown", (e) => e.preventDefault());
    }
  }

  /** Reset asks once more on the button itself, so a stray click loses nothing. */
  confirmReset(button) {
    if (button.dataset.mdxConfirm) {
      clearTimeout(this.confirmTimer);
      delete button.dataset.mdxConfirm;
      button.textContent = "Reset lab";
      this.reset();
      return;
    }
    button.dataset.mdxConfirm = "true";
    const switched = this.now.lab !== this.lab || this.now.seed !== this.seed;
    button.textContent = switched ? `Click again to reset to ${variantLabel(this.lab, this.seed)}` : "Click again to reset";
    this.confirmTimer = setTimeout(() => {
      delete button.dataset.mdxConfirm;
      button.textContent = "Reset lab";
    }, 4000);
  }

  togglePanel(button) {
    const panel = this.q("[data-mdx-panel]");
    if (!panel) return;
    panel.hidden = !panel.hidden;
    button.setAttribute("aria-expanded", String(!panel.hidden));
  }

  onVirtualKey(key) {
    if (key === "Tab") this.complete();
    else if (key === "Ctrl-C") this.ctrlC();
    else if (key === "ArrowUp") this.history(-1);
    else if (key === "ArrowDown") this.history(1);
  }

  setLine(value, cursor = value.length) {
    this.input.value = value;
    this.input.setSelectionRange(cursor, cursor);
  }

  onKey(e) {
    if (e.isComposing) return;
    const ctrl = e.ctrlKey && !e.altKey && !e.metaKey;
    const alt = e.altKey && !e.ctrlKey && !e.metaKey;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (this.search && this.onSearchKey(e, ctrl, key)) return;
    if (this.pendingList) {
      e.preventDefault();
      const list = this.pendingList;
      this.pendingList = null;
      this.print("out", "\n");
      if (key === "y" || key === " ") this.print("out", columns(list, this.widthInChars()));
      return;
    }
    // Tab completes; Escape first lets the next Tab leave the terminal (no keyboard trap).
    const released = this.tabReleased;
    this.tabReleased = key === "Escape";
    if (key === "Tab" && released) return;
    const input = this.input;
    const value = input.value;
    const pos = input.selectionStart ?? value.length;
    const handled = () => e.preventDefault();
    if (key === "Enter" && !e.shiftKey) {
      handled();
      this.setLine("");
      this.submit(value);
    } else if (key === "Tab" && !e.shiftKey && !ctrl && !alt) {
      handled();
      this.complete();
    } else if (key === "ArrowUp" && !ctrl && !alt) {
      handled();
      this.history(-1);
    } else if (key === "ArrowDown" && !ctrl && !alt) {
      handled();
      this.history(1);
    } else if (ctrl && key === "c") {
      const selected = String(window.getSelection()) || input.selectionStart !== input.selectionEnd;
      if (selected) return; // copy, as the browser does
      handled();
      this.ctrlC();
    } else if (ctrl && key === "d") {
      handled();
      if (value) {
        this.setLine(value.slice(0, pos) + value.slice(pos + 1), pos);
      } else if (!this.busy && this.sid !== null && !this.queue.length) {
        // End of input on an empty line: the shell logs out (back from ssh).
        this.run("exit", this.prompt);
      }
    } else if (ctrl && key === "l") {
      handled();
      this.clear();
    } else if (ctrl && key === "a") {
      handled();
      this.setLine(value, 0);
    } else if (ctrl && key === "e") {
      handled();
      this.setLine(value);
    } else if (ctrl && key === "u") {
      handled();
      this.killed = value.slice(0, pos);
      this.setLine(value.slice(pos), 0);
    } else if (ctrl && key === "k") {
      handled();
      this.killed = value.slice(pos);
      this.setLine(value.slice(0, pos), pos);
    } else if (ctrl && key === "w") {
      handled();
      const start = bigWordLeft(value, pos);
      this.killed = value.slice(start, pos);
      this.setLine(value.slice(0, start) + value.slice(pos), start);
    } else if (ctrl && key === "y") {
      handled();
      this.setLine(value.slice(0, pos) + this.killed + value.slice(pos), pos + this.killed.length);
    } else if (ctrl && key === "r") {
      handled();
      this.startSearch();
    } else if (alt && e.code === "KeyB") {
      handled();
      const to = wordLeft(value, pos);
      this.setLine(value, to);
    } else if (alt && e.code === "KeyF") {
      handled();
      const to = wordRight(value, pos);
      this.setLine(value, to);
    }
  }

  ctrlC() {
    if (this.busy) {
      this.interrupt();
      return;
    }
    this.queue = [];
    this.print("cmd", `${this.promptEl.textContent}${this.input.value}^C\n`);
    this.pending = [];
    this.setPrompt();
    this.setLine("");
    this.histPos = this.record.history.length;
  }

  history(step) {
    const list = this.record.history;
    const next = this.histPos + step;
    if (next < 0 || next > list.length) return;
    if (this.histPos === list.length) this.draft = this.input.value;
    this.histPos = next;
    this.setLine(next === list.length ? this.draft : list[next]);
  }

  // -- reverse search (Ctrl-R) ---------------------------------------------------------

  startSearch() {
    if (this.search) return;
    this.search = { query: "", index: this.record.history.length, original: this.input.value, failed: false };
    this.setPrompt();
  }

  searchPrompt() {
    const s = this.search;
    return `(${s.failed ? "failed " : ""}reverse-i-search)\`${s.query}': `;
  }

  findSearch(from) {
    const s = this.search;
    const found = searchBack(this.record.history, s.query, from);
    s.failed = found < 0;
    if (!s.failed) {
      s.index = found;
      this.setLine(this.record.history[found]);
    }
    this.setPrompt();
  }

  endSearch(keep) {
    const s = this.search;
    this.search = null;
    if (!keep) this.setLine(s.original);
    this.histPos = this.record.history.length;
    this.setPrompt();
  }

  /** Keys while searching; returns true when the key was used up. */
  onSearchKey(e, ctrl, key) {
    const s = this.search;
    if (ctrl && key === "r") {
      e.preventDefault();
      this.findSearch(s.index - 1);
      return true;
    }
    if ((ctrl && (key === "g" || key === "c")) || key === "Escape") {
      e.preventDefault();
      this.endSearch(false);
      return true;
    }
    if (key === "Backspace") {
      e.preventDefault();
      s.query = s.query.slice(0, -1);
      this.findSearch(this.record.history.length - 1);
      return true;
    }
    if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      s.query += e.key;
      this.findSearch(s.failed ? s.index : Math.max(s.index, 0));
      if (s.failed) this.findSearch(this.record.history.length - 1);
      return true;
    }
    if (["Shift", "Control", "Alt", "Meta"].includes(e.key)) return true;
    this.endSearch(true);
    return false; // Enter, arrows, Ctrl-A/E... act on the found line
  }

  // -- completion and paste --------------------------------------------------------------

  complete() {
    if (this.busy || this.sid === null) return;
    const value = this.input.value;
    const pos = this.input.selectionStart ?? value.length;
    const before = value.slice(0, pos);
    runtime.request(
      { type: Msg.COMPLETE, sid: this.sid, line: before },
      {
        onCompletion: (m) => {
          if (this.input.value !== value || this.disposed) return;
          const word = before.slice(m.start);
          const matches = m.matches || [];
          // `common` is the longest common prefix, or the single match and a space.
          if (m.common && m.common.length > word.length) {
            const head = before.slice(0, m.start) + m.common;
            this.setLine(head + value.slice(pos), head.length);
          } else if (matches.length > ASK_ABOVE) {
            // As bash does past its query limit: ask before filling the screen.
            this.print("cmd", `${this.prompt}${value}\n`);
            this.print("out", `Display all ${matches.length} possibilities? (y or n)`);
            this.pendingList = matches;
          } else if (matches.length > 1) {
            this.print("cmd", `${this.prompt}${value}\n`);
            this.print("out", columns(matches, this.widthInChars()));
          }
        },
      },
    );
  }

  onPaste(e) {
    const text = e.clipboardData ? e.clipboardData.getData("text/plain") : "";
    if (!/[\r\n]/.test(text)) return;
    e.preventDefault();
    const { lines, rest } = splitPaste(text);
    const value = this.input.value;
    const pos = this.input.selectionStart ?? value.length;
    lines[0] = value.slice(0, pos) + lines[0];
    const tail = rest + value.slice(this.input.selectionEnd ?? pos);
    this.setLine(tail, rest.length);
    for (const line of lines) this.submit(line);
  }
}
