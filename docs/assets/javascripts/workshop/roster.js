/**
 * The instructor page's roster: each student's seed and links, the CSV to keep, and codes checked by replay.
 *
 * `studentSeed` is emulator.labs.codes.student_seed: FNV-1a (32-bit) of the
 * UTF-8 text "workshop\nstudent" (each trimmed, inner spaces collapsed,
 * lower-cased), modulo 9000, plus 1000. Names come typed one per line or from
 * a CSV whose first column is the name (a header row "student" or "name" is
 * skipped). Codes are checked by the page's emulator runtime (the VERIFY
 * request of protocol.js), which replays each one: nothing leaves the page.
 */

export function cleanName(name) {
  return String(name).split(/\s+/).filter(Boolean).join(" ");
}

export function studentSeed(workshop, student) {
  const text = `${cleanName(workshop).toLowerCase()}\n${cleanName(student).toLowerCase()}`;
  let value = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    value = Math.imul(value ^ byte, 0x01000193) >>> 0;
  }
  return 1000 + (value % 9000);
}

/** The cells of one CSV line (double quotes group, "" is a quote). */
export function csvCells(line) {
  const cells = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      cells.push(cell);
      cell = "";
    } else cell += c;
  }
  cells.push(cell);
  return cells.map((text) => text.trim());
}

function csvLine(cells) {
  return cells.map((cell) => (/[",\n]/.test(String(cell)) ? `"${String(cell).replaceAll('"', '""')}"` : String(cell))).join(",");
}

/** Students from typed lines or a CSV (first column), blank lines and a header left out, each once. */
export function parseStudents(text) {
  const seen = new Set();
  const names = [];
  for (const line of String(text).split(/\r?\n/)) {
    const name = cleanName(csvCells(line)[0] ?? "");
    if (!name || /^(student|name)s?$/i.test(name) || seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    names.push(name);
  }
  return names;
}

/** Each student's row: {student, seed, links: [{lab, url}]}; labs: [{lab, page}], pages from the site's root `base`. */
export function roster(workshop, students, labs, base) {
  return students.map((student) => {
    const seed = studentSeed(workshop, student);
    const links = labs.map(({ lab, page }) => ({
      lab, url: new URL(`${page}?lab=${encodeURIComponent(lab)}&seed=${seed}&student=${encodeURIComponent(student)}`, base).href,
    }));
    return { student, seed, links };
  });
}

/** The CSV to keep: workshop, student, seed, lab, link. */
export function rosterCsv(workshop, rows) {
  const lines = [csvLine(["workshop", "student", "seed", "lab", "link"])];
  for (const row of rows) {
    for (const link of row.links) lines.push(csvLine([cleanName(workshop), row.student, row.seed, link.lab, link.url]));
  }
  return lines.join("\n") + "\n";
}

/** Codes to check from pasted text: "student,code" lines (CSV), or bare codes one per line. */
export function parseCodes(text) {
  const entries = [];
  for (const line of String(text).split(/\r?\n/)) {
    const cells = csvCells(line).filter(Boolean);
    if (!cells.length) continue;
    const code = cells[cells.length - 1];
    if (!/^cl1-/i.test(code)) continue;
    entries.push({ student: cells.length > 1 ? cleanName(cells[0]) : "", code });
  }
  return entries;
}
