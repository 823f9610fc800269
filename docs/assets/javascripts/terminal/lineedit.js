/**
 * Line-editing arithmetic, free of the DOM: word motions as readline does
 * them, bash's column layout for a list of completion candidates, and prose
 * wrapped to a width.
 */

const isWord = (ch) => /[A-Za-z0-9_]/.test(ch);

/** Position of the start of the word before `pos` (Alt-B, Ctrl-W use spaces). */
export function wordLeft(text, pos, word = isWord) {
  let i = pos;
  while (i > 0 && !word(text[i - 1])) i -= 1;
  while (i > 0 && word(text[i - 1])) i -= 1;
  return i;
}

/** Position of the end of the word after `pos` (Alt-F). */
export function wordRight(text, pos, word = isWord) {
  let i = pos;
  while (i < text.length && !word(text[i])) i += 1;
  while (i < text.length && word(text[i])) i += 1;
  return i;
}

/** Ctrl-W: the start of the whitespace-delimited word before `pos`. */
export function bigWordLeft(text, pos) {
  return wordLeft(text, pos, (ch) => !/\s/.test(ch));
}

/**
 * Candidates laid out as bash lists them: columns as wide as the longest
 * candidate plus two spaces, filled top to bottom, as many as fit `width`.
 */
export function columns(items, width) {
  if (!items.length) return "";
  const cell = Math.max(...items.map((s) => s.length)) + 2;
  const cols = Math.max(1, Math.floor((width + 2) / cell));
  const rows = Math.ceil(items.length / cols);
  const lines = [];
  for (let r = 0; r < rows; r += 1) {
    let line = "";
    for (let c = 0; c < cols; c += 1) {
      const item = items[c * rows + r];
      if (item === undefined) break;
      const last = c === cols - 1 || items[(c + 1) * rows + r] === undefined;
      line += last ? item : item.padEnd(cell);
    }
    lines.push(line);
  }
  return lines.join("\n") + "\n";
}

/** The newest history entry at or before `from` containing `query`, or -1. */
export function searchBack(history, query, from) {
  for (let i = Math.min(from, history.length - 1); i >= 0; i -= 1) {
    if (history[i].includes(query)) return i;
  }
  return -1;
}

/** Split pasted text into complete lines to run and the unfinished rest. */
export function splitPaste(text) {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const rest = lines.pop();
  return { lines, rest };
}

/** Each line of `text` longer than `width` broken at spaces, its continuation indented as the line is. */
export function wrapProse(text, width) {
  const out = [];
  for (const line of text.split("\n")) {
    const indent = line.match(/^\s*/)[0];
    let rest = line;
    while (rest.length > width && width > indent.length + 10) {
      const cut = rest.lastIndexOf(" ", width);
      if (cut <= indent.length) break;
      out.push(rest.slice(0, cut));
      rest = indent + rest.slice(cut + 1).trimStart();
    }
    out.push(rest);
  }
  return out.join("\n");
}
