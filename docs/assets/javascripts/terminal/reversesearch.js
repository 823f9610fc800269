/**
 * Reverse search of the history (Ctrl-R), as readline does it: the prompt
 * shows the query, typing narrows it, Ctrl-R finds the next older match,
 * Escape, Ctrl-G or Ctrl-C put the line back, and any other key ends the
 * search and acts on the line found.
 */

import { searchBack } from "./lineedit.js";

export class ReverseSearch {
  constructor(terminal) {
    this.terminal = terminal;
    /** {query, index, original, failed} while searching, else null. */
    this.current = null;
  }

  get active() {
    return this.current !== null;
  }

  start() {
    const { editor, record } = this.terminal;
    if (this.current) return;
    this.current = { query: "", index: record.history.length, original: editor.input.value, failed: false };
    editor.setPrompt();
  }

  prompt() {
    const s = this.current;
    return `(${s.failed ? "failed " : ""}reverse-i-search)\`${s.query}': `;
  }

  find(from) {
    const { editor, record } = this.terminal;
    const s = this.current;
    const found = searchBack(record.history, s.query, from);
    s.failed = found < 0;
    if (!s.failed) {
      s.index = found;
      editor.setLine(record.history[found]);
    }
    editor.setPrompt();
  }

  end(keep) {
    const { editor, record } = this.terminal;
    const s = this.current;
    this.current = null;
    if (!keep) editor.setLine(s.original);
    editor.histPos = record.history.length;
    editor.setPrompt();
  }

  /** Keys while searching; returns true when the key was used up. */
  onKey(e, ctrl, key) {
    const { record } = this.terminal;
    const s = this.current;
    if (ctrl && key === "r") {
      e.preventDefault();
      this.find(s.index - 1);
      return true;
    }
    if ((ctrl && (key === "g" || key === "c")) || key === "Escape") {
      e.preventDefault();
      this.end(false);
      return true;
    }
    if (key === "Backspace") {
      e.preventDefault();
      s.query = s.query.slice(0, -1);
      this.find(record.history.length - 1);
      return true;
    }
    if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      s.query += e.key;
      this.find(s.failed ? s.index : Math.max(s.index, 0));
      if (s.failed) this.find(record.history.length - 1);
      return true;
    }
    if (["Shift", "Control", "Alt", "Meta"].includes(e.key)) return true;
    this.end(true);
    return false; // Enter, arrows, Ctrl-A/E... act on the found line
  }
}
