/**
 * Mounts the page's terminal each time Material shows a page (document$
 * emits after the first load and after every in-site click), wires the
 * "Run in terminal" buttons of `console` code blocks, and starts the runtime
 * once the browser is idle, or adopts at once the worker prestart.js started
 * from <head>, and has the worker build the next page's lab session when an
 * in-site link is clicked.
 *
 * A URL such as `?lab=late-rank&seed=7` opens that lab and seed instead of
 * the page's own. `?student=NAME` (the instructor page's links carry it)
 * keeps NAME as this browser's student name: the terminal exports it as
 * $STUDENT, the name completion codes carry.
 *
 * On a page whose labs table is wrapped in data-mdx-component="lab-solves"
 * (the labs index), it marks each lab this browser solved (storage.js).
 */

import { runtime } from "./client.js";
import { Terminal } from "./terminal.js";
import { variantLabel } from "./labbar.js";
import { cleanStudent, setStudent, solves, student } from "./storage.js";

const LAB_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;

let current = null;

/** The lab and seed to open: the address's, else the page's. */
function variant(el) {
  const params = new URLSearchParams(location.search);
  const lab = params.get("lab");
  const seed = params.get("seed");
  const page = { lab: el.dataset.mdxLab || "sandbox", seed: Number(el.dataset.mdxSeed) || 0 };
  if (lab === null && seed === null) return page;
  const chosen = { lab: lab ?? page.lab, seed: seed === null ? 0 : Number(seed) };
  if (!LAB_ID.test(chosen.lab) || !Number.isSafeInteger(chosen.seed) || chosen.seed < 0) {
    return { ...page, notice: `The address names a lab or seed that does not exist (lab=${lab}, seed=${seed}); showing this page's lab.` };
  }
  return chosen;
}

/** The `$ ` lines of a console block, the commands it shows. */
function commandsOf(block) {
  const code = block.querySelector("code");
  return (code ? code.textContent : "")
    .split("\n")
    .filter((line) => line.startsWith("$ "))
    .map((line) => line.slice(2));
}

function addRunButtons(root, terminal) {
  for (const block of root.querySelectorAll(".language-console")) {
    if (block.querySelector(".mdx-run") || !commandsOf(block).length) continue;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "mdx-run";
    button.textContent = "Run in terminal";
    button.title = "Type these commands into this page's terminal";
    button.addEventListener("click", () => terminal.type(commandsOf(block)));
    block.append(button);
  }
}

function showVariant(el, { lab, seed }) {
  const label = el.querySelector("[data-mdx-variant]");
  if (label) label.textContent = variantLabel(lab, seed);
}

/** Mark the labs this browser solved in a lab-solves table: "✓ Solved" and the hints used, beside the lab's id. */
function markSolves(doc) {
  const solved = solves();
  for (const table of doc.querySelectorAll('[data-mdx-component="lab-solves"]')) {
    for (const row of table.querySelectorAll("tbody tr")) {
      const id = row.querySelector("td code")?.textContent;
      const solve = id && Object.hasOwn(solved, id) ? solved[id] : null;
      if (!solve || row.querySelector(".mdx-lab-solved")) continue;
      const hints = Number(solve.hints) || 0;
      const mark = document.createElement("span");
      mark.className = "mdx-lab-solved";
      mark.dataset.mdxLabSolved = id;
      mark.textContent = `✓ Solved, ${hints} hint${hints === 1 ? "" : "s"}`;
      row.cells[0].append(document.createElement("br"), mark);
    }
  }
}

function mount(doc) {
  performance.mark("mdx:mount");
  markSolves(doc);
  if (current) current.dispose();
  current = null;
  const el = doc.querySelector('[data-mdx-component="terminal"]');
  if (!el) return;
  const given = new URLSearchParams(location.search).get("student");
  if (given !== null) setStudent(given);
  const chosen = { ...variant(el), student: cleanStudent(given) || student() };
  showVariant(el, chosen);
  const share = el.querySelector("[data-mdx-share]");
  if (share) share.href = `?lab=${encodeURIComponent(chosen.lab)}&seed=${chosen.seed}`;
  const goal = el.querySelector("[data-mdx-lab-goal]");
  if (goal && chosen.lab !== el.dataset.mdxLab) goal.textContent = "Type lab to see this lab's goal.";
  current = new Terminal(el, chosen);
  addRunButtons(doc.querySelector(".md-content") || doc, current);
}

/**
 * An in-site link pressed: while Material fetches and shows the next page, the worker builds that page's
 * lab session (client.js), so its terminal opens without waiting for the build. The press (pointerdown)
 * tells it a tenth of a second or so before the click, in which the worker finishes what it was doing (a
 * background import); the click tells it again (a keyboard's Enter has no press), which costs nothing
 * once the session is built. The click is marked `mdx:click`, where the benchmark's navigation begins.
 */
function prepareOnPress(event) {
  const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
  if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const url = new URL(link.href, location.href);
  if (url.origin !== location.origin || url.pathname === location.pathname) return;
  if (event.type === "click") performance.mark("mdx:click");
  runtime.prepare(url.pathname);
}

function startWhenIdle() {
  const start = () => runtime.start();
  if (runtime.prestarted()) return start();
  if ("requestIdleCallback" in window) requestIdleCallback(start, { timeout: 3000 });
  else setTimeout(start, 1000);
}

if (window.document$ && typeof window.document$.subscribe === "function") {
  window.document$.subscribe((doc) => mount(doc));
} else {
  mount(document);
}
document.addEventListener("pointerdown", prepareOnPress, true);
document.addEventListener("click", prepareOnPress, true);
startWhenIdle();
