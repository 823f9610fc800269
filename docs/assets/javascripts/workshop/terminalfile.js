/**
 * The progress file from a page's terminal: what `progress export` and
 * `progress import` ask of the page (emulator.web.step's `request`).
 *
 * The worker runs Python, not the browser's storage or its files, so the
 * page answers: `export` saves the terminal's session, then downloads the
 * file progressfile.js builds from everything this browser keeps
 * (progress.json); `import` opens a file picker at once (the Enter that ran
 * the line is the gesture a picker needs) and merges the chosen file. If
 * the browser refuses the picker without a fresh gesture, the terminal shows
 * a "Choose a file" button. Each outcome is printed in the terminal; a
 * refused file changes nothing.
 */

import { merge, collect } from "./progressfile.js";
import { load } from "../terminal/storage.js";

export const FILE_NAME = "progress.json";

/** Download `text` as the file `name`. */
export function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The progress file's text for this browser. */
export function progressText() {
  return JSON.stringify(collect(localStorage), null, 1) + "\n";
}

function exportFile(terminal) {
  terminal.session.save(() => {
    download(FILE_NAME, "application/json", progressText());
    terminal.scrollback.print("out", `progress export: saved ${FILE_NAME} (every terminal of this browser) to your downloads\n`);
  });
}

async function importFile(terminal, file) {
  const { scrollback, record } = terminal;
  try {
    const added = merge(localStorage, await file.text());
    scrollback.print("out", `progress import: ${file.name}: ${added.terminals} terminal(s) and ${added.solved} ` +
                            "solve(s) added or updated\n");
  } catch (error) {
    scrollback.print("err", `progress import: ${file.name} was not imported, and nothing stored changed. ${error.message}\n`);
    return;
  }
  const kept = load(terminal.lab, terminal.seed).record;
  if (kept.history.length > record.history.length) {
    // The file held a longer run of this very terminal: continue from it, not from the line typed here.
    Object.assign(record, { history: kept.history, state: kept.state }); // the screen stays as it is
    terminal.editor.histPos = record.history.length;
    scrollback.print("out", `progress import: this terminal continues the imported run (${kept.history.length} lines)\n`);
    terminal.session.reopen();
  }
}

function picker(terminal) {
  const input = Object.assign(document.createElement("input"), { type: "file", accept: ".json,application/json" });
  input.hidden = true;
  input.addEventListener("change", () => {
    const [file] = input.files;
    input.remove();
    if (file) importFile(terminal, file);
  });
  terminal.el.append(input);
  return input;
}

function importChooser(terminal) {
  const input = picker(terminal);
  if (!navigator.userActivation || navigator.userActivation.isActive) {
    input.click();
    return;
  }
  // No gesture left to open a picker with: a button in the terminal, which is one.
  const button = Object.assign(document.createElement("button"), { type: "button", className: "mdx-terminal__button",
                                                                   textContent: "Choose a file" });
  button.dataset.mdxAction = "import";
  button.addEventListener("click", () => {
    button.remove();
    input.click();
  });
  terminal.scrollback.print("out", "progress import: choose the progress file to merge:\n");
  terminal.scrollback.output.append(button);
  button.focus();
}

/** Answer a terminal's request: ["export" | "import", path]. */
export function answer(terminal, [action]) {
  if (terminal.disposed) return;
  if (action === "export") exportFile(terminal);
  else if (action === "import") importChooser(terminal);
}
