/**
 * One page's terminal, composed of its parts: the scrollback
 * (scrollback.js), the command line (editor.js) with reverse search
 * (reversesearch.js) and completion (completion.js), the bar and lab panel
 * (labbar.js), the lines it runs (runner.js), its session in the worker
 * (session.js) and its place on the page (dock.js). Python decides what a line means; the terminal only draws,
 * keeps history and forwards keys to the worker through client.js. This file
 * makes the parts, wires the page's events to them and is what main.js uses.
 */

import { runtime } from "./client.js";
import * as store from "./storage.js";
import { Scrollback } from "./scrollback.js";
import { LineEditor } from "./editor.js";
import { ReverseSearch } from "./reversesearch.js";
import { Completion } from "./completion.js";
import { LabBar } from "./labbar.js";
import { Runner } from "./runner.js";
import { Session } from "./session.js";
import { Dock } from "./dock.js";
import "./lineedit.js"; // the parts' own import, named here so that it downloads beside them, not after them

export class Terminal {
  constructor(el, { lab, seed, notice = null, student = "" }) {
    this.el = el;
    this.lab = lab;
    this.seed = seed;
    /** The name a ?student= link gave ($STUDENT in the session, carried by completion codes), or "". */
    this.student = student;
    this.key = `${lab}:${seed}`;
    this.q = (selector) => el.querySelector(selector);
    this.disposed = false;

    const loaded = store.load(lab, seed);
    /** The lab's saved record (storage.js): history, session state and scrollback, shared by the parts. */
    this.record = loaded.record;
    this.scrollback = new Scrollback(el, this.record);
    this.editor = new LineEditor(this);
    this.search = new ReverseSearch(this);
    this.completion = new Completion(this);
    this.bar = new LabBar(this);
    this.runner = new Runner(this);
    this.session = new Session(this, [notice, loaded.notice].filter(Boolean));
    this.dock = new Dock(this);

    el.dataset.mdxState = "idle";
    if (!performance.getEntriesByName("mdx:mounted").length) performance.mark("mdx:mounted");
    this.editor.setPrompt();
    this.wire();
    this.session.listen();
    this.takeEarlyInput();
  }

  /**
   * Lines entered before this terminal mounted (prestart.js kept them) run now, in order, as if typed
   * here; a command line focused before then starts the runtime, as a focus after mounting would.
   */
  takeEarlyInput() {
    const early = window.mdxEarlyInput ? window.mdxEarlyInput.take() : [];
    if (early.length) this.type(early);
    else if (document.activeElement === this.editor.input) runtime.start();
  }

  dispose() {
    this.disposed = true;
    this.dock.dispose();
    this.session.unlisten();
    this.runner.leave();
  }

  /** Type commands into the terminal as if entered one after another. */
  type(lines) {
    this.dock.reveal();
    for (const line of lines) this.runner.submit(line);
    this.editor.input.focus({ preventScroll: true });
  }

  wire() {
    const { editor, bar, dock } = this;
    const input = editor.input;
    input.addEventListener("keydown", (e) => editor.onKey(e));
    input.addEventListener("paste", (e) => editor.onPaste(e));
    input.addEventListener("focus", () => runtime.start(), { once: true });
    this.scrollback.output.addEventListener("click", () => {
      if (!String(window.getSelection())) input.focus({ preventScroll: true });
    });
    this.el.addEventListener("click", (e) => {
      const action = e.target.closest("[data-mdx-action]")?.dataset.mdxAction;
      const key = e.target.closest("[data-mdx-key]")?.dataset.mdxKey;
      const run = e.target.closest("[data-mdx-run]")?.dataset.mdxRun;
      if (action === "reset") bar.confirmReset(e.target.closest("[data-mdx-action]"));
      if (action === "panel") bar.togglePanel(e.target.closest("[data-mdx-action]"));
      if (action === "fit") dock.toggleFit(e.target.closest("[data-mdx-action]"));
      if (action === "dock") dock.toggleDocked();
      if (action === "close") dock.close();
      if (run) this.type([run]);
      if (key) {
        input.focus({ preventScroll: true });
        editor.onVirtualKey(key);
      }
    });
    // On-screen keys keep the focus (and the phone's keyboard) on the line.
    for (const button of this.el.querySelectorAll("[data-mdx-key]")) {
      button.addEventListener("pointerdown", (e) => e.preventDefault());
    }
  }
}
