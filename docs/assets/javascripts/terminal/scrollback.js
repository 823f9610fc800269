/**
 * The terminal's scrollback: output drawn as text (textContent, never as
 * HTML), each chunk kind in its own class (mdx-terminal__out, __err, __cmd,
 * __tip for this terminal's own tips, __ok for a verdict), bounded to MAX_SCROLLBACK characters and kept in the lab's record
 * (storage.js), a command's output read out by the live region (a long one
 * as a one-line summary, a `submit` verdict on its own), and the width of the
 * screen in characters. The output scrolls sideways on its own, so the command
 * line under it stays in view.
 *
 * Drawing never reads the layout back: the screen scrolls to its end once
 * per frame, and the width in characters is measured once and kept until the
 * screen's width, its font or its text size changes (Fit width), so a command's output
 * costs the browser one layout, in its next frame, however long the
 * scrollback.
 */

import { wrapProse } from "./lineedit.js";

/** Characters kept in the on-screen scrollback; older output is dropped. */
export const MAX_SCROLLBACK = 200000;
/** Characters of one command's output read out by the live region. */
const MAX_ANNOUNCE = 1500;
/** Lines of one command's output read out whole; a longer output is said as its command and line count. */
const MAX_READ_LINES = 8;
/** The first line of a `submit` verdict, said on its own. */
const VERDICT = /^(✓ Correct|Not yet)\b/;
/** The escape sequence of a full-screen repaint, and every other control sequence (dropped). */
const CLEAR_SCREEN = "\x1b[2J";
const CONTROL = /\x1b\[[0-9;?]*[A-Za-z]/g;
/** Chunk kinds drawn in their own style (protocol.js); any other is drawn as plain output. */
const KINDS = new Set(["out", "err", "tip", "ok"]);

/** The line a command echo shows, without its prompt (`alice@node01:~$ nvidia-smi` → `nvidia-smi`), cut short. */
function commandOf(echo) {
  const line = echo.split("\n", 1)[0];
  const at = line.search(/[$#>] /);
  const typed = (at >= 0 ? line.slice(at + 2) : line).trim();
  return typed.length > 40 ? `${typed.slice(0, 39)}…` : typed;
}

/** Put `text` in a live region, as a new node each time so that the same words twice are said twice. */
function say(region, text) {
  const said = document.createElement("p");
  said.textContent = text;
  region.replaceChildren(said);
}

export class Scrollback {
  /** Draws again the scrollback `record` (the lab's saved record) kept. */
  constructor(el, record) {
    this.output = el.querySelector("[data-mdx-output]");
    this.screen = el.querySelector("[data-mdx-screen]");
    this.live = el.querySelector("[data-mdx-live]");
    this.verdict = el.querySelector("[data-mdx-verdict]");
    /** The line the latest command echo showed, for the summary of its output. */
    this.command = "";
    this.record = record;
    this.size = 0;
    /** {font, width}: the screen's width in characters as last measured, in that font; null: measure again. */
    this.columns = null;
    /** Whether a scroll to the end waits for the next frame. */
    this.scrolling = false;
    this.watchWidth();
    for (const [stream, text] of record.scrollback) this.draw(stream, text);
  }

  /** Forget the width measured when the screen's width changes (a window resized, the terminal docked). */
  watchWidth() {
    if (typeof ResizeObserver !== "function") return;
    let width = null;
    new ResizeObserver((entries) => {
      const now = entries[entries.length - 1].contentRect.width;
      if (now !== width) this.columns = null;
      width = now;
    }).observe(this.screen);
  }

  /** Scroll the screen to its end before the next frame is drawn (once, however many chunks came). */
  scrollToEnd() {
    if (this.scrolling) return;
    this.scrolling = true;
    requestAnimationFrame(() => {
      this.scrolling = false;
      this.screen.scrollTop = this.screen.scrollHeight;
    });
  }

  print(stream, text) {
    if (!text) return;
    if (stream === "cmd") this.command = commandOf(text);
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
    this.scrollToEnd();
  }

  /** A running command's output chunks; `collected` gathers what the live region reads out once it is done. */
  write(chunks, collected) {
    for (const [stream, raw] of chunks) {
      // A full-screen repaint (watch) clears the screen, as a terminal would.
      const cleared = raw.lastIndexOf(CLEAR_SCREEN);
      if (cleared >= 0) {
        this.clear();
        collected.length = 0;
      }
      const text = (cleared >= 0 ? raw.slice(cleared + CLEAR_SCREEN.length) : raw).replace(CONTROL, "");
      collected.push(text);
      this.print(KINDS.has(stream) ? stream : "out", text);
    }
  }

  clear() {
    this.output.textContent = "";
    this.size = 0;
    this.record.scrollback = [];
  }

  /** Prose (the banner) wrapped to the screen's width, as the lab commands wrap theirs. */
  prose(text) {
    this.print("out", wrapProse(text, this.widthInChars() - 1));
  }

  /**
   * Read out a command's output: a `submit` verdict on its own, then the output whole when it is short, or
   * as "nvidia-smi: 38 lines; Shift-Tab to read them" when it is long (a table flattened is no help).
   */
  announce(text) {
    let rest = text.trim();
    const first = rest.split("\n", 1)[0];
    if (this.verdict && VERDICT.test(first)) {
      say(this.verdict, first);
      rest = rest.slice(first.length).trim();
      if (!rest) return;
    }
    const lines = rest ? rest.split("\n").length : 0;
    if (lines > MAX_READ_LINES) {
      say(this.live, `${this.command || "Output"}: ${lines} lines; Shift-Tab to read them`);
      return;
    }
    const trimmed = rest.length > MAX_ANNOUNCE ? `${rest.slice(0, MAX_ANNOUNCE)}… (more in the terminal output)` : rest;
    say(this.live, trimmed || "Done, no output.");
  }

  /** Terminal width in characters (the shell's COLUMNS, completion lists), measured once until it changes. */
  widthInChars() {
    const { fontSize, fontFamily } = getComputedStyle(this.output); // style only: no layout
    const font = `${fontSize} ${fontFamily} ${document.fonts?.status}`; // a font still loading: again once loaded
    if (this.columns === null || this.columns.font !== font) this.columns = { font, width: this.measure() };
    return this.columns.width;
  }

  measure() {
    const probe = document.createElement("span");
    probe.textContent = "0".repeat(10);
    this.output.append(probe);
    const w = probe.getBoundingClientRect().width / 10;
    probe.remove();
    const style = getComputedStyle(this.screen);
    const visible = this.screen.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return w > 0 ? Math.max(20, Math.floor(visible / w)) : 80;
  }
}
