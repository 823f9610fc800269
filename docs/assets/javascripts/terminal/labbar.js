/**
 * The terminal's bar and lab panel: the label naming the lab and seed the
 * session is in now, a "✓ Solved" badge once that lab is solved (and the
 * solve kept in this browser, storage.js), the panel (the lab's title, goal, its
 * objectives ticking as the learner's output shows each reference step's
 * evidence, buttons and share link, made here when the page has none) and its
 * toggle, and Reset, which asks once more on the button itself. An objective that
 * ticks from a command's output is said once in the polite progress live region
 * ("Objective done: … (2 of 4)"); a session opened or restored (a reload, another
 * page of the lab) and a switch of lab tick nothing aloud.
 */
import { recordSolve } from "./storage.js";

/** How the bar names a lab and seed: "lab late-rank · seed 7", or "healthy cluster". */
export function variantLabel(lab, seed) {
  return (lab === "sandbox" ? "healthy cluster" : `lab ${lab}`) + (seed ? ` · seed ${seed}` : "");
}

/** An element with text and dataset entries; `attributes` go through setAttribute. */
function element(tag, text, dataset = {}, attributes = {}) {
  const made = document.createElement(tag);
  if (text) made.textContent = text;
  Object.assign(made.dataset, dataset);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  return made;
}

export class LabBar {
  constructor(terminal) {
    this.terminal = terminal;
    /** The lab the session is in now ({lab, seed, title, goal}); `lab start` changes it. */
    this.now = { lab: terminal.lab, seed: terminal.seed };
    this.shown = null;
  }

  /**
   * Show the lab the session is in now, which `lab start` changes and which a
   * restored session may have switched to: the bar's label, the panel's title,
   * goal and share link. The panel is offered only while a lab runs; a page of
   * the healthy cluster gets one when a lab starts there.
   */
  follow(variant, ran = false) {
    const { q, session } = this.terminal;
    if (!variant || variant.title === undefined || this.terminal.disposed) return;
    const lab = variant.lab || "sandbox";
    const { seed, title, goal } = variant;
    const solved = variant.solved ?? null;
    const objectives = Array.isArray(variant.objectives) ? variant.objectives : [];
    const before = this.now;
    this.now = { lab, seed, title, goal, solved, objectives };
    if (ran) this.announceTicks(before, this.now);
    session.keep();
    const shown = JSON.stringify(this.now);
    if (shown === this.shown) return;
    this.shown = shown;
    const label = q("[data-mdx-variant]");
    if (label) label.textContent = variantLabel(lab, seed);
    this.showSolved(lab, seed, solved);
    const running = lab !== "sandbox";
    const panel = running ? this.panel() : q("[data-mdx-panel]");
    const toggle = q('[data-mdx-action="panel"]');
    if (!panel || !toggle) return;
    toggle.hidden = !running;
    if (!running) {
      panel.hidden = true;
      toggle.setAttribute("aria-expanded", "false");
    }
    panel.querySelector("[data-mdx-lab-title]").textContent = title;
    panel.querySelector("[data-mdx-lab-goal]").textContent = goal;
    panel.querySelector("[data-mdx-share]").href = `?lab=${encodeURIComponent(lab)}&seed=${seed}`;
    this.showObjectives(panel, objectives);
  }

  /**
   * Say, in the polite progress region, the objectives a command just ticked: only when `before` was the same
   * lab and seed with the same steps, so a restored or switched session is never read out as progress.
   */
  announceTicks(before, now) {
    const region = this.terminal.q("[data-mdx-progress]");
    const was = before.objectives;
    if (!region || before.lab !== now.lab || before.seed !== now.seed || !Array.isArray(was)
        || was.length !== now.objectives.length) return;
    const ticked = now.objectives.filter((o, i) => o.done && !was[i].done && was[i].text === o.text);
    if (!ticked.length) return;
    const done = now.objectives.filter((o) => o.done).length;
    const said = element("p", `${ticked.length === 1 ? "Objective" : "Objectives"} done: `
      + `${ticked.map((o) => o.text).join("; ")} (${done} of ${now.objectives.length})`);
    region.replaceChildren(said);
  }

  /**
   * The lab's objectives, one per reference step: "✓" and "done" once the learner's own output showed the
   * step's evidence, "○" and "to do" before (a symbol and a word, never colour alone).
   */
  showObjectives(panel, objectives) {
    const box = panel.querySelector("[data-mdx-objectives]");
    if (!box) return;
    box.hidden = !objectives.length;
    const list = box.querySelector("ul");
    list.replaceChildren(...objectives.map(({ text, done }) => {
      const item = element("li", "", { mdxObjective: done ? "done" : "todo" });
      const mark = element("span", done ? "✓" : "○", {}, { class: "mdx-terminal__objective-mark", "aria-hidden": "true" });
      const state = element("span", done ? "done: " : "to do: ", {}, { class: "mdx-visually-hidden" });
      item.append(mark, " ", state, text);
      return item;
    }));
    const count = box.querySelector("[data-mdx-objectives-count]");
    if (count) count.textContent = `(${objectives.filter((o) => o.done).length} of ${objectives.length} done)`;
  }

  /** The bar's badge: "✓ Solved" while the session's lab is solved (a symbol and a word, never colour alone). */
  showSolved(lab, seed, solved) {
    const { q } = this.terminal;
    let badge = q("[data-mdx-solved]");
    if (!badge && solved) {
      badge = element("span", "", { mdxSolved: "" }, { class: "mdx-terminal__solved" });
      q("[data-mdx-variant]")?.after(badge);
    }
    if (!badge) return;
    badge.hidden = !solved;
    if (!solved) return;
    const hints = `${solved.hints} hint${solved.hints === 1 ? "" : "s"}`;
    badge.textContent = "✓ Solved";
    badge.title = `Solved in ${solved.attempts} attempt${solved.attempts === 1 ? "" : "s"}, ${hints}`;
    recordSolve(lab, seed, solved);
  }

  /** The lab panel and its toggle, made as the page template makes them when the page has none. */
  panel() {
    const { q, session } = this.terminal;
    const found = q("[data-mdx-panel]");
    if (found) return found;
    const button = (text, dataset, attributes = {}) =>
      element("button", text, dataset, { type: "button", class: "mdx-terminal__button", ...attributes });
    const toggle = button("Lab panel", { mdxAction: "panel" },
                          { "aria-expanded": "false", "aria-controls": "mdx-terminal-panel" });
    q(".mdx-terminal__actions")?.prepend(toggle);
    const panel = element("div", "", { mdxPanel: "" }, { class: "mdx-terminal__panel", id: "mdx-terminal-panel" });
    panel.hidden = true;
    const title = element("p");
    title.append(element("strong", "", { mdxLabTitle: "" }));
    const runs = element("p");
    runs.append(button("Show progress", { mdxRun: "lab" }), " ", button("Next hint", { mdxRun: "hint" }), " ",
                button("Reference procedure", { mdxRun: "solutions" }));
    const share = element("p");
    share.append(element("a", "Link to this lab and seed", { mdxShare: "" }), " (for a bug report or a class)");
    const objectives = element("div", "", { mdxObjectives: "" });
    objectives.hidden = true;
    const heading = element("p", "Objectives ", {}, { class: "mdx-terminal__objectives-title" });
    heading.append(element("span", "", { mdxObjectivesCount: "" }));
    objectives.append(heading, element("ul", "", {}, { class: "mdx-terminal__objectives" }));
    panel.append(title, element("p", "", { mdxLabGoal: "" }), objectives, runs, share);
    session.status.before(panel);
    return panel;
  }

  /** Reset asks once more on the button itself, so a stray click loses nothing. */
  confirmReset(button) {
    const { lab, seed, session } = this.terminal;
    if (button.dataset.mdxConfirm) {
      clearTimeout(this.confirmTimer);
      delete button.dataset.mdxConfirm;
      button.textContent = "Reset lab";
      session.reset();
      return;
    }
    button.dataset.mdxConfirm = "true";
    const switched = this.now.lab !== lab || this.now.seed !== seed;
    button.textContent = switched ? `Click again to reset to ${variantLabel(lab, seed)}` : "Click again to reset";
    this.confirmTimer = setTimeout(() => {
      delete button.dataset.mdxConfirm;
      button.textContent = "Reset lab";
    }, 4000);
  }

  togglePanel(button) {
    const panel = this.terminal.q("[data-mdx-panel]");
    if (!panel) return;
    panel.hidden = !panel.hidden;
    button.setAttribute("aria-expanded", String(!panel.hidden));
  }
}
