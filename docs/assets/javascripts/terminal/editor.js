/**
 * The command line: its prompt, its keys as readline binds them (the
 * arithmetic is lineedit.js's), the kill buffer, the history Up and Down
 * walk, paste, and the on-screen keys. Reverse search (reversesearch.js) and
 * a pending completion question (completion.js) see each key first.
 */

import { bigWordLeft, splitPaste, wordLeft, wordRight } from "./lineedit.js";

const DEFAULT_PROMPT = "alice@login01:~$ ";
/** The prompt for the next line of an unfinished command (bash's PS2). */
const CONTINUATION = "> ";

export class LineEditor {
  constructor(terminal) {
    this.terminal = terminal;
    this.input = terminal.q("[data-mdx-input]");
    this.promptEl = terminal.q("[data-mdx-prompt]");
    this.prompt = DEFAULT_PROMPT;
    this.killed = "";
    this.tabReleased = false;
    this.histPos = terminal.record.history.length;
    this.draft = "";
  }

  setPrompt(prompt) {
    const { search, runner } = this.terminal;
    if (prompt) this.prompt = prompt;
    let shown = this.prompt;
    if (search.active) shown = search.prompt();
    else if (runner.pending.length) shown = CONTINUATION;
    this.promptEl.textContent = shown;
  }

  setLine(value, cursor = value.length) {
    this.input.value = value;
    this.input.setSelectionRange(cursor, cursor);
  }

  /** A line goes to run: history keeps it (not a blank line, nor a repeat), and Up starts from the newest again. */
  commit(line) {
    const { history } = this.terminal.record;
    if (line.trim() && history[history.length - 1] !== line) {
      history.push(line);
    }
    this.histPos = history.length;
    this.draft = "";
  }

  onVirtualKey(key) {
    if (key === "Tab") this.terminal.completion.complete();
    else if (key === "Ctrl-C") this.ctrlC();
    else if (key === "ArrowUp") this.history(-1);
    else if (key === "ArrowDown") this.history(1);
  }

  onKey(e) {
    if (e.isComposing) return;
    const { search, completion, runner, session, scrollback } = this.terminal;
    const ctrl = e.ctrlKey && !e.altKey && !e.metaKey;
    const alt = e.altKey && !e.ctrlKey && !e.metaKey;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (search.active && search.onKey(e, ctrl, key)) return;
    if (completion.answer(e, key)) return;
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
      runner.submit(value);
    } else if (key === "Tab" && !e.shiftKey && !ctrl && !alt) {
      handled();
      completion.complete();
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
      } else if (!runner.busy && session.sid !== null && !runner.queue.length) {
        // End of input on an empty line: the shell logs out (back from ssh).
        runner.run("exit", this.prompt);
      }
    } else if (ctrl && key === "l") {
      handled();
      scrollback.clear();
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
      search.start();
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

  /** Ctrl-C: interrupt the running command, else drop the line typed so far and the lines queued. */
  ctrlC() {
    const { runner, scrollback } = this.terminal;
    if (runner.busy) {
      runner.interrupt();
      return;
    }
    runner.drop();
    scrollback.print("cmd", `${this.promptEl.textContent}${this.input.value}^C\n`);
    this.setPrompt();
    this.setLine("");
    this.histPos = this.terminal.record.history.length;
  }

  history(step) {
    const list = this.terminal.record.history;
    const next = this.histPos + step;
    if (next < 0 || next > list.length) return;
    if (this.histPos === list.length) this.draft = this.input.value;
    this.histPos = next;
    this.setLine(next === list.length ? this.draft : list[next]);
  }

  /** Pasted lines run one after another; an unfinished last line stays on the command line. */
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
    for (const line of lines) this.terminal.runner.submit(line);
  }
}
