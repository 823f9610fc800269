/*
 * Runs first in every page's <head>, as a classic script: when this browser
 * holds a start-up snapshot of the terminal's runtime, it starts the
 * emulator worker at once, while the page itself is still loading, so the
 * restore overlaps the page's own work. client.js adopts this worker and the
 * messages it sent before the page's modules ran (mdxPrestarted.take()).
 *
 * It starts nothing when the address says `?snapshot=off`, when localStorage
 * says `mdx-terminal:snapshot` = `off`, when no snapshot is held (client.js
 * keeps `mdx-terminal:snapshot-held`), or where the terminal cannot run at all
 * (file://, no WebAssembly, no workers): those pages start the runtime later,
 * from client.js, as before.
 */
(function () {
  try {
    if (new URLSearchParams(location.search).get("snapshot") === "off") return;
    if (localStorage.getItem("mdx-terminal:snapshot") === "off") return;
    if (localStorage.getItem("mdx-terminal:snapshot-held") !== "1") return;
  } catch (error) {
    return; // storage disabled: nothing is held
  }
  if (location.protocol === "file:" || typeof WebAssembly !== "object" || typeof Worker !== "function") return;
  var worker;
  try {
    worker = new Worker(new URL("worker.js", document.currentScript.src), { type: "module" });
  } catch (error) {
    return; // client.js starts it again and reports why it cannot
  }
  var early = [];
  function keep(event) {
    if (early) early.push(event);
  }
  worker.addEventListener("message", keep);
  worker.addEventListener("error", function (event) {
    event.preventDefault();
    keep(event);
  });
  window.mdxPrestarted = {
    worker: worker,
    /** The worker and the events it sent so far (message or error events, in order); once. */
    take: function () {
      var events = early;
      early = null;
      window.mdxPrestarted = null;
      return events && { worker: worker, events: events };
    },
  };
})();
