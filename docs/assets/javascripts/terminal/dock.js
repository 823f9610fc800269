/**
 * Where a lab page's terminal sits, so that reading the page and typing never
 * need a scroll to its end.
 *
 * On a wide screen the terminal docks beside the prose, on a narrower one
 * under it (terminal.css keeps the prose readable in the room left), and stays
 * there while the page scrolls; its "Docked" button puts it back at the page's end and the choice
 * is kept in this browser. On a phone it is a bottom sheet: one always-visible
 * button opens it full screen, and its Close button, Esc or the browser's back
 * closes it (opening pushes a history entry). "Fit width" shrinks the text of
 * any terminal so that 80 columns fit its screen.
 *
 * The same terminal element moves between these places: one runtime, one
 * session.
 */

/** localStorage: "off" when the reader put the docked terminal back at the page's end. */
const DOCK_SETTING = "mdx-terminal:dock";
/** Narrower than this (Material's tablet breakpoint, 60em), a lab page's terminal is a bottom sheet. */
const PHONE = window.matchMedia("(max-width: 59.9375em)");
/** The columns "Fit width" makes room for. */
const FIT_COLUMNS = 80;

/** When back closed a sheet: a Dock made within a second after (Material showed the page again) focuses its button. */
let closedByBack = -Infinity;

function docking() {
  try {
    return localStorage.getItem(DOCK_SETTING) !== "off";
  } catch {
    return true;
  }
}

export class Dock {
  constructor(terminal) {
    this.terminal = terminal;
    this.el = terminal.el;
    this.docked = this.el.classList.contains("mdx-terminal--dock");
    this.opener = document.querySelector("[data-mdx-sheet-open]");
    this.onKey = (e) => {
      if (e.key === "Escape" && this.isOpen() && !e.defaultPrevented) this.close();
    };
    /** Whether the history entry that opening the sheet pushed is still there. */
    this.pushed = false;
    // Leaving that entry (back, or Close) closes the sheet. Material may show the page again for the same
    // event (the first one after a full load): the next Dock then gives the focus back to the button.
    this.onPop = () => {
      if (!this.pushed) return;
      this.pushed = false;
      closedByBack = performance.now();
      if (this.isOpen()) this.close(false);
      else this.opener?.focus({ preventScroll: true });
    };
    this.onMedia = () => this.place();
    if (!this.docked) return;
    this.opener?.addEventListener("click", () => this.open());
    document.addEventListener("keydown", this.onKey);
    window.addEventListener("popstate", this.onPop);
    PHONE.addEventListener("change", this.onMedia);
    this.setDocked(docking());
    this.place();
    if (performance.now() - closedByBack < 1000 && PHONE.matches) this.opener?.focus({ preventScroll: true });
  }

  dispose() {
    document.removeEventListener("keydown", this.onKey);
    window.removeEventListener("popstate", this.onPop);
    PHONE.removeEventListener("change", this.onMedia);
    document.documentElement.removeAttribute("data-mdx-dock");
    document.documentElement.removeAttribute("data-mdx-sheet");
  }

  /** Whether the phone's sheet is open. */
  isOpen() {
    return this.el.dataset.mdxSheet === "open";
  }

  /** The page's layout: "dock" (docked beside the prose, or under it on a narrower screen), "sheet" (a phone) or none. */
  place() {
    if (!this.docked) return;
    const root = document.documentElement;
    if (PHONE.matches) root.dataset.mdxDock = "sheet";
    else if (this.el.dataset.mdxDocked === "true") root.dataset.mdxDock = "dock";
    else root.removeAttribute("data-mdx-dock");
    if (!PHONE.matches && this.isOpen()) this.close(false);
  }

  setDocked(on) {
    this.el.dataset.mdxDocked = String(on);
    const button = this.el.querySelector('[data-mdx-action="dock"]');
    if (button) {
      button.setAttribute("aria-pressed", String(on));
      button.textContent = on ? "Docked" : "Dock";
    }
    this.place();
  }

  /** The "Docked" button: beside the prose, or back at the page's end (kept in this browser). */
  toggleDocked() {
    const on = this.el.dataset.mdxDocked !== "true";
    try {
      if (on) localStorage.removeItem(DOCK_SETTING);
      else localStorage.setItem(DOCK_SETTING, "off");
    } catch {
      // storage disabled: the choice lasts this page
    }
    this.setDocked(on);
    this.terminal.editor.input.focus({ preventScroll: true });
  }

  /** Open the phone's sheet full screen, with the command line focused; back closes it. */
  open() {
    if (!this.docked || !PHONE.matches || this.isOpen()) return;
    this.el.dataset.mdxSheet = "open";
    this.opener?.setAttribute("aria-expanded", "true");
    document.documentElement.dataset.mdxSheet = "open";
    history.pushState(history.state, "");
    this.pushed = true;
    const { scrollback, editor } = this.terminal;
    scrollback.screen.scrollTop = scrollback.screen.scrollHeight;
    editor.input.focus({ preventScroll: true });
  }

  /** Close the sheet; `back`: also leave the history entry that opening pushed. */
  close(back = true) {
    if (!this.isOpen()) return;
    delete this.el.dataset.mdxSheet;
    this.opener?.setAttribute("aria-expanded", "false");
    delete document.documentElement.dataset.mdxSheet;
    if (back && this.pushed) history.back(); // onPop then focuses the button
    else this.opener?.focus({ preventScroll: true });
  }

  /** Lines are about to be typed in (a "Run in terminal" button): show the terminal first. */
  reveal() {
    if (this.docked && PHONE.matches) this.open();
    else if (!(this.docked && this.el.dataset.mdxDocked === "true")) this.el.scrollIntoView({ block: "nearest" });
  }

  /** "Fit width": the screen's text shrinks until 80 columns fit its width, or comes back to its size. */
  toggleFit(button) {
    const screen = this.terminal.scrollback.screen;
    const on = button.getAttribute("aria-pressed") !== "true";
    button.setAttribute("aria-pressed", String(on));
    screen.style.removeProperty("font-size");
    if (!on) return;
    const columns = this.terminal.scrollback.widthInChars();
    if (columns >= FIT_COLUMNS) return;
    const size = parseFloat(getComputedStyle(screen).fontSize);
    screen.style.fontSize = `${Math.floor((size * columns * 100) / FIT_COLUMNS) / 100}px`;
  }
}
