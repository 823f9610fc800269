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
 * screen's width, its font or its text size changes (Fit width). The output
 * is drawn in blocks of a few thousand characters, so a command's output
 * costs the browser the layout of the last block, in its next frame, however
 * long the scrollback.
 */

import { wrapProse } from "./lineedit.js";

/** Characters kept in the on-screen scrollback; older output is dropped. */
export const MAX_SCROLLBACK = 200000;
/** Characters an output block holds before the next one begins, at the end of a line (Scrollback.draw). */
const BLOCK_CHARS = 2000;
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

  /**
   * Draw `text` at the end of the output, in blocks of about BLOCK_CHARS (blocks): a new block begins in
   * place of a newline once the last one is full, so the browser lays out that block alone, not the whole
   * scrollback. Then cut the oldest output beyond MAX_SCROLLBACK.
   */
  draw(stream, text) {
    let rest = text;
    while (rest) {
      const block = this.lastBlock();
      const at = this.blockEnd(block, rest);
      if (at < 0) {
        this.append(block, stream, rest);
        break;
      }
      if (at > 0) this.append(block, stream, rest.slice(0, at));
      this.newBlock();
      rest = rest.slice(at + 1);
    }
    this.size += text.length;
    this.trim();
    this.scrollToEnd();
  }

  /** The output's last block, made if there is none. */
  lastBlock() {
    const last = this.output.lastElementChild;
    return last && last.dataset.mdxBlock !== undefined ? last : this.newBlock("");
  }

  /**
   * A block of the output; `newline`: the newline it begins in place of, kept in the text (copy, the
   * output's textContent) but not drawn, as the block's own line break stands for it.
   */
  newBlock(newline = "\n") {
    const block = document.createElement("span");
    block.className = "mdx-terminal__block";
    block.dataset.mdxBlock = "";
    block.chars = 0;
    if (newline) {
      const gap = document.createElement("span");
      gap.className = "mdx-terminal__break";
      gap.textContent = newline;
      block.append(gap);
    }
    this.output.append(block);
    return block;
  }

  /**
   * Where in `text` the next block begins, or -1: once `block` holds BLOCK_CHARS, at the first newline that
   * ends a line with text on it (a block ending in an empty line would not draw that line).
   */
  blockEnd(block, text) {
    const last = block.lastChild?.textContent ?? "";
    let at = text.indexOf("\n", Math.max(0, BLOCK_CHARS - block.chars));
    while (at >= 0 && (at > 0 ? text[at - 1] : last[last.length - 1] ?? "\n") === "\n") at = text.indexOf("\n", at + 1);
    return at;
  }

  /** Add `text` of `stream` to the end of `block`. */
  append(block, stream, text) {
    const last = block.lastChild;
    if (last && last.dataset.stream === stream) {
      last.textContent += text;
    } else {
      const span = document.createElement("span");
      span.dataset.stream = stream;
      span.className = `mdx-terminal__${stream}`;
      span.textContent = text;
      block.append(span);
    }
    block.chars += text.length;
  }

  /** Cut the oldest output until the scrollback holds MAX_SCROLLBACK characters. */
  trim() {
    while (this.size > MAX_SCROLLBACK && this.output.firstChild) {
      const block = this.output.firstChild;
      const excess = this.size - MAX_SCROLLBACK;
      const whole = block.textContent.length;
      if (whole <= excess || !block.firstChild) {
        block.remove();
        this.size -= whole;
        continue;
      }
      const first = block.firstChild;
      const length = first.textContent.length;
      const cut = Math.min(excess, length);
      if (cut === length) first.remove();
      else first.textContent = first.textContent.slice(cut);
      this.size -= cut;
    }
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
    if (typeof ResizeObserver !== "function") return this.measure(); // no way to hear a resize: measure each time
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
