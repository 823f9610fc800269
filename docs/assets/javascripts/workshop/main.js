/**
 * Mounts the workshop widgets each time Material shows a page (document$):
 *
 * - data-mdx-component="progress-file" (My progress): the labs solved and the
 *   terminals kept in this browser, Export (a download) and Import (a file
 *   picker) of the progress file (progressfile.js);
 * - data-mdx-component="workshop" (the instructor page): students' seeds and
 *   links, the CSV, the printable sheet, and pasted codes checked by the
 *   page's emulator runtime (roster.js).
 *
 * Everything is computed in the page; nothing is sent anywhere.
 */

import { runtime } from "../terminal/client.js";
import { Msg } from "../terminal/protocol.js";
import { collect, merge } from "./progressfile.js";
import { FILE_NAME, download, progressText } from "./terminalfile.js";
import { cleanName, parseCodes, parseStudents, roster, rosterCsv, studentSeed } from "./roster.js";

function cell(row, text, header = false) {
  const el = document.createElement(header ? "th" : "td");
  if (header) el.scope = "row";
  el.textContent = text;
  row.append(el);
  return el;
}

function table(headings) {
  const el = document.createElement("table");
  const head = el.createTHead().insertRow();
  for (const text of headings) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = text;
    head.append(th);
  }
  el.createTBody();
  return el;
}

function siteRoot() {
  try {
    const config = JSON.parse(document.querySelector("#__config").textContent);
    return new URL(config.base || ".", location.href).href.replace(/\/?$/, "/");
  } catch {
    return new URL(".", location.href).href;
  }
}

// -- My progress -----------------------------------------------------------------------------------------------
function showProgress(el) {
  const data = collect(localStorage);
  const out = el.querySelector("[data-mdx-progress-table]");
  const solved = table(["Lab", "Seed", "Hints used", "Attempts"]);
  for (const [lab, solve] of Object.entries(data.solved).sort()) {
    const row = solved.tBodies[0].insertRow();
    cell(row, lab, true);
    cell(row, String(solve.seed));
    cell(row, String(solve.hints));
    cell(row, String(solve.attempts));
  }
  const kept = table(["Terminal (lab)", "Seed", "Lines typed"]);
  for (const record of data.terminals) {
    const row = kept.tBodies[0].insertRow();
    cell(row, record.lab, true);
    cell(row, String(record.seed));
    cell(row, String(record.history.length));
  }
  const trails = data.terminals.filter((record) => record.history.length).map((record) => {
    const trail = document.createElement("details");
    trail.className = "mdx-progress__trail";
    const summary = document.createElement("summary");
    summary.textContent = `${record.lab}, seed ${record.seed}: the ${record.history.length} line(s) typed`;
    const lines = document.createElement("pre");
    lines.textContent = record.history.map((line) => `$ ${line}`).join("\n");
    trail.append(summary, lines);
    return trail;
  });
  out.replaceChildren(
    Object.assign(document.createElement("h2"), { textContent: "Labs solved in this browser" }),
    Object.keys(data.solved).length ? solved : Object.assign(document.createElement("p"), { textContent: "None yet." }),
    Object.assign(document.createElement("h2"), { textContent: "Terminals kept in this browser" }),
    data.terminals.length ? kept : Object.assign(document.createElement("p"), { textContent: "None yet." }),
    ...(trails.length ? [Object.assign(document.createElement("h2"), { textContent: "What you typed, lab by lab" }), ...trails] : []),
  );
}

function mountProgress(el) {
  const status = el.querySelector("[data-mdx-progress-status]");
  el.querySelector('[data-mdx-action="export"]').addEventListener("click", () => {
    download(FILE_NAME, "application/json", progressText());
    status.textContent = `Your progress file was saved as ${FILE_NAME}.`;
  });
  const picker = el.querySelector('[data-mdx-action="import"]');
  picker.addEventListener("change", async () => {
    const file = picker.files[0];
    if (!file) return;
    try {
      const added = merge(localStorage, await file.text());
      status.textContent = `Imported ${file.name}: ${added.terminals} terminal(s) and ${added.solved} solve(s) added or updated.`;
      status.dataset.mdxOutcome = "imported";
    } catch (error) {
      status.textContent = `${file.name} was not imported, and nothing stored changed. ${error.message}`;
      status.dataset.mdxOutcome = "refused";
    }
    picker.value = "";
    showProgress(el);
  });
  showProgress(el);
}

// -- The instructor page ---------------------------------------------------------------------------------------
function chosenLabs(el) {
  return [...el.querySelectorAll('input[name="lab"]:checked')].map((box) => ({ lab: box.value, page: box.dataset.mdxPage }));
}

function showRoster(el, rows) {
  const out = el.querySelector("[data-mdx-roster]");
  out.replaceChildren();
  for (const row of rows) {
    const block = document.createElement("section");
    block.className = "mdx-workshop__student";
    const heading = document.createElement("h3");
    heading.textContent = `${row.student} (seed ${row.seed})`;
    const list = document.createElement("ul");
    for (const link of row.links) {
      const item = document.createElement("li");
      const a = Object.assign(document.createElement("a"), { href: link.url, textContent: link.url });
      item.append(`${link.lab}: `, a);
      list.append(item);
    }
    block.append(heading, list);
    out.append(block);
  }
}

function showVerdicts(el, workshop, entries, verdicts) {
  const out = el.querySelector("[data-mdx-verdicts]");
  const result = table(["Student", "Lab", "Seed", "Result", "Hints", "Procedure printed", "Note"]);
  entries.forEach((entry, i) => {
    const verdict = verdicts[i];
    const student = entry.student || verdict.student;
    const notes = [];
    let ok = verdict.ok;
    if (verdict.seed >= 0 && workshop && student) {
      const expected = studentSeed(workshop, student);
      if (expected !== verdict.seed) {
        ok = false;
        notes.push(`seed ${verdict.seed} is not ${student}'s seed in this workshop (${expected})`);
      }
    }
    if (entry.student && verdict.student && cleanName(entry.student).toLowerCase() !== verdict.student.toLowerCase()) {
      notes.push(`the code names ${verdict.student}`);
    }
    if (!verdict.ok) notes.unshift(verdict.line.replace(/^INVALID (lab=\S+ seed=\d+: )?/, ""));
    const row = result.tBodies[0].insertRow();
    row.dataset.mdxResult = ok ? "ok" : "invalid";
    cell(row, student || "(no name)", true);
    cell(row, verdict.lab || "");
    cell(row, verdict.seed >= 0 ? String(verdict.seed) : "");
    cell(row, ok ? "✓ valid" : "✗ refused");
    cell(row, verdict.ok ? String(verdict.hints) : "");
    cell(row, verdict.ok ? (verdict.solutions ? "yes" : "no") : "");
    cell(row, notes.join("; "));
  });
  out.replaceChildren(result);
}

function mountWorkshop(el) {
  const name = el.querySelector("[data-mdx-workshop-name]");
  const students = el.querySelector("[data-mdx-students]");
  let rows = [];
  const make = () => {
    rows = roster(name.value, parseStudents(students.value), chosenLabs(el), siteRoot());
    showRoster(el, rows);
    return rows;
  };
  el.querySelector('[data-mdx-action="students-file"]').addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (file) students.value = parseStudents(await file.text()).join("\n");
    make();
  });
  el.querySelector('[data-mdx-action="links"]').addEventListener("click", make);
  el.querySelector('[data-mdx-action="csv"]').addEventListener("click", () => {
    download(`${cleanName(name.value) || "workshop"}.csv`, "text/csv", rosterCsv(name.value, make()));
  });
  el.querySelector('[data-mdx-action="print"]').addEventListener("click", () => {
    make();
    window.print();
  });
  const codes = el.querySelector("[data-mdx-codes]");
  const status = el.querySelector("[data-mdx-verify-status]");
  el.querySelector('[data-mdx-action="codes-file"]').addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (file) codes.value = await file.text();
  });
  el.querySelector('[data-mdx-action="verify"]').addEventListener("click", () => {
    const entries = parseCodes(codes.value);
    if (!entries.length) {
      status.textContent = "No completion code found: paste codes (they start with CL1-), one per line, or student,code lines.";
      return;
    }
    status.textContent = `Checking ${entries.length} code(s) by replaying them…`;
    runtime.request({ type: Msg.VERIFY, codes: entries.map((e) => e.code), workshop: null }, {
      onDone: (message) => {
        const verdicts = JSON.parse(message.state);
        showVerdicts(el, cleanName(name.value), entries, verdicts);
        const valid = el.querySelectorAll('[data-mdx-result="ok"]').length;
        status.textContent = `Checked ${entries.length} code(s): ${valid} valid.`;
      },
      onError: (reason) => {
        status.textContent = `The codes could not be checked: ${reason}`;
      },
    });
  });
}

function mount(doc) {
  for (const el of doc.querySelectorAll('[data-mdx-component="progress-file"]')) mountProgress(el);
  for (const el of doc.querySelectorAll('[data-mdx-component="workshop"]')) mountWorkshop(el);
}

// The study report prints every lab's trail open.
window.addEventListener("beforeprint", () => {
  for (const trail of document.querySelectorAll(".mdx-progress__trail")) trail.open = true;
});

if (window.document$ && typeof window.document$.subscribe === "function") {
  window.document$.subscribe((doc) => mount(doc));
} else {
  mount(document);
}
