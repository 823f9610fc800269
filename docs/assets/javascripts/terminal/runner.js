/**
 * Running lines in the terminal's session: the lines typed wait in a queue
 * (while the runtime loads, or while a command runs) and run one at a time,
 * their output drawn as it streams in; the lines of an unfinished command
 * wait for the rest; Ctrl-C interrupts, and a command that does not stop
 * restarts the runtime, as does one whose worker stops answering for
 * WATCHDOG_MS (watchdog.js): the session is then restored without that line.
 */

import { runtime } from "./client.js";
import { answer } from "../workshop/terminalfile.js";
import { Msg, WATCHDOG_MS } from "./protocol.js";
import * as store from "./storage.js";
import { Watchdog, stalls, STALL_MS } from "./watchdog.js";

/** How long an interrupted command may take to stop before the runtime restarts. */
const INTERRUPT_GRACE_MS = 4000;

export class Runner {
  constructor(terminal) {
    this.terminal = terminal;
    /** The running line's request: {id, timer, interrupted, retried}, or null. */
    this.busy = null;
    /** Lines waiting to run: text, or {line, echo} to run again in a reopened session. */
    this.queue = [];
    /** The lines of an unfinished command, run with the next one. */
    this.pending = [];
    this.watchdog = new Watchdog(() => this.stopped(this.busy));
  }

  submit(line) {
    const { editor, session, record } = this.terminal;
    editor.commit(line);
    this.queue.push(line);
    runtime.start();
    if (runtime.state === "loading") session.onRuntime({ state: "loading", progress: runtime.progress });
    this.drain();
    if (runtime.state === "failed") session.persist();
  }

  drain() {
    if (this.busy || this.terminal.session.sid === null || !this.queue.length || this.terminal.disposed) return;
    const next = this.queue.shift();
    if (typeof next === "string") this.run(next);
    else this.run(next.line, next.echo, true);
  }

  /** Run one line; `echo` is what the screen shows for it (the prompt and the line). */
  run(line, echo = `${this.terminal.editor.promptEl.textContent}${line}\n`, retried = false) {
    const { el, editor, session, scrollback, bar } = this.terminal;
    scrollback.print("cmd", echo);
    const collected = [];
    const busy = { id: 0, timer: null, interrupted: false, retried };
    const text = [...this.pending, line].join("\n");
    this.busy = busy;
    el.dataset.mdxBusy = "true";
    const request = stalls(text)
      ? { type: Msg.STALL, ms: STALL_MS }
      : { type: Msg.RUN, sid: session.sid, line: text, columns: scrollback.widthInChars(), solves: store.solves() };
    this.watchdog.start();
    busy.id = runtime.request(
      request,
      {
        onOutput: (chunks) => {
          this.watchdog.alive();
          scrollback.write(chunks, collected);
        },
        onDone: (m) => {
          if (m.more) {
            this.pending.push(line);
            editor.setPrompt();
          } else {
            this.pending = [];
          }
          this.finish(busy, m.prompt, collected);
          bar.follow(m, true);
          if (m.request) answer(this.terminal, m.request);
        },
        onError: (message) => {
          if (/KeyError/.test(message) && !busy.retried) {
            // The worker closed this session to save memory: reopen it from its saved state, run the line there.
            session.closed();
            this.finish(busy, null, collected);
            this.queue.unshift({ line, echo: "" });
            session.open();
            return;
          }
          scrollback.print("err", `${message}\n`);
          this.finish(busy, null, collected);
        },
      },
    );
  }

  finish(busy, prompt, collected) {
    const { el, editor, session, scrollback } = this.terminal;
    clearTimeout(busy.timer);
    if (this.busy !== busy || this.terminal.disposed) return;
    this.watchdog.stop();
    this.busy = null;
    delete el.dataset.mdxBusy;
    el.dataset.mdxRuns = String(Number(el.dataset.mdxRuns || 0) + 1);
    if (prompt) editor.setPrompt(prompt);
    session.keep();
    scrollback.announce(collected.join(""));
    session.save();
    this.drain();
  }

  interrupt() {
    const busy = this.busy;
    this.queue = [];
    if (!busy || busy.interrupted) return;
    busy.interrupted = true;
    runtime.interrupt(this.terminal.session.sid);
    busy.timer = setTimeout(() => this.recover(busy), INTERRUPT_GRACE_MS);
  }

  /** A command did not stop: restart the runtime and reopen from the last saved state. */
  recover(busy) {
    this.restart(
      busy,
      "The command did not stop, so the terminal restarted its runtime and restored your session from the last saved state.",
    );
  }

  /** The worker stopped answering while `busy` ran (watchdog.js): stop it, restore the session without it. */
  stopped(busy) {
    this.restart(
      busy,
      `The command stopped answering for ${WATCHDOG_MS / 1000} seconds, so it was stopped: the terminal restarted ` +
        "its runtime and restored your session without that line.",
    );
  }

  /**
   * Say why, then restart the runtime. The session's saved state is the one after the last line that
   * finished (session.save), so the reopened session holds every line but the stopped one.
   */
  restart(busy, why) {
    const { el, scrollback, session } = this.terminal;
    if (!busy || this.busy !== busy) return;
    clearTimeout(busy.timer);
    this.watchdog.stop();
    scrollback.print("err", `${why}\n`);
    this.busy = null;
    delete el.dataset.mdxBusy;
    el.dataset.mdxRuns = String(Number(el.dataset.mdxRuns || 0) + 1);
    session.persist();
    runtime.restart();
  }

  /** Ctrl-C on the line and Reset: interrupt the running command, forget the queued lines and an unfinished command. */
  drop() {
    if (this.busy) this.interrupt();
    this.queue = [];
    this.pending = [];
  }

  /** The runtime restarted: the command it was running went with it. */
  lost() {
    this.watchdog.stop();
    if (this.busy) {
      clearTimeout(this.busy.timer);
      this.busy = null;
    }
  }

  /** The page is going: interrupt the running command; its replies are no longer wanted. */
  leave() {
    this.watchdog.stop();
    if (this.busy) {
      runtime.interrupt(this.terminal.session.sid);
      runtime.forget(this.busy.id);
      clearTimeout(this.busy.timer);
      this.busy = null;
    }
  }
}
