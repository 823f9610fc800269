/**
 * Tab completion: the worker's candidates for the word before the cursor
 * fill in their longest common prefix, or are listed in columns as bash lists
 * them (lineedit.js), after asking first when there are more than ASK_ABOVE.
 */

import { runtime } from "./client.js";
import { Msg } from "./protocol.js";
import { columns } from "./lineedit.js";

/** More completion candidates than this are listed only after a y (bash's completion-query-items). */
const ASK_ABOVE = 100;

export class Completion {
  constructor(terminal) {
    this.terminal = terminal;
    /** The candidates waiting for the answer to "Display all N possibilities?", or null. */
    this.pendingList = null;
  }

  complete() {
    const { runner, session, editor, scrollback } = this.terminal;
    if (runner.busy || session.sid === null) return;
    const value = editor.input.value;
    const pos = editor.input.selectionStart ?? value.length;
    const before = value.slice(0, pos);
    runtime.request(
      { type: Msg.COMPLETE, sid: session.sid, line: before },
      {
        onCompletion: (m) => {
          if (editor.input.value !== value || this.terminal.disposed) return;
          const word = before.slice(m.start);
          const matches = m.matches || [];
          // `common` is the longest common prefix, or the single match and a space.
          if (m.common && m.common.length > word.length) {
            const head = before.slice(0, m.start) + m.common;
            editor.setLine(head + value.slice(pos), head.length);
          } else if (matches.length > ASK_ABOVE) {
            // As bash does past its query limit: ask before filling the screen.
            scrollback.print("cmd", `${editor.prompt}${value}\n`);
            scrollback.print("out", `Display all ${matches.length} possibilities? (y or n)`);
            this.pendingList = matches;
          } else if (matches.length > 1) {
            scrollback.print("cmd", `${editor.prompt}${value}\n`);
            scrollback.print("out", columns(matches, scrollback.widthInChars()));
          }
        },
      },
    );
  }

  /** The key after "Display all N possibilities?": y or space lists them, any other does not. True when it answered. */
  answer(e, key) {
    if (!this.pendingList) return false;
    const { scrollback } = this.terminal;
    e.preventDefault();
    const list = this.pendingList;
    this.pendingList = null;
    scrollback.print("out", "\n");
    if (key === "y" || key === " ") scrollback.print("out", columns(list, scrollback.widthInChars()));
    return true;
  }
}
