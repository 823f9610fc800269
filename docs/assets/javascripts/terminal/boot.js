/*
 * Runs before the terminal's modules, as a classic script: where those
 * modules cannot run at all (a page opened from file://, a browser without
 * WebAssembly or module workers), it says so in plain words in the terminal's
 * status line. The page itself stays readable.
 */
(function () {
  var reason = null;
  if (location.protocol === "file:") {
    reason =
      "This page was opened as a file (file://), and browsers do not run the terminal's Python runtime from files. " +
      "Serve the site instead (for example `make serve`, or `python3 -m http.server -d site 8000`) and open " +
      "http://127.0.0.1:8000/. The rest of the page reads fine without the terminal.";
  } else if (typeof WebAssembly !== "object") {
    reason =
      "This browser cannot run WebAssembly (it is missing or turned off), so the terminal cannot start. " +
      "The rest of the page reads fine without it.";
  }
  if (!reason) return;
  document.querySelectorAll('[data-mdx-component="terminal"]').forEach(function (el) {
    el.dataset.mdxState = "failed";
    var status = el.querySelector("[data-mdx-status]");
    status.textContent = reason;
    status.hidden = false;
    status.classList.add("mdx-terminal__status--failed");
    var input = el.querySelector("[data-mdx-input]");
    input.disabled = true;
    input.placeholder = "The terminal is unavailable";
  });
})();
