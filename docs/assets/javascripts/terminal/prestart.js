/*
 * Runs first in every page's <head>, inlined by hooks/prestart.py (this
 * comment is left out), with the worker's address, the build's Pyodide
 * folder and its compiled standard library in its data-worker, data-pyodide
 * and data-stdlib attributes. It starts the
 * emulator worker at once, while the page itself is still loading, so the
 * runtime's start overlaps the page's own work: a restore when this browser
 * holds a start-up snapshot of the terminal's runtime (`?held=KEY`), else
 * Pyodide's boot, as on a first visit. client.js adopts this worker and the
 * messages it sent before the page's modules ran (mdxPrestarted.take()).
 *
 * The worker starts downloading at once, but its heavy start (compiling
 * Pyodide, reading the snapshot, restoring or booting) waits until the page
 * has painted its content: prestart.js posts PAINTED at the first contentful
 * paint (`?paint=wait`; a second at most). On two cores the two had shared
 * the cores, and the page painted about 0.1 s later than without a terminal.
 *
 * It also holds back Material's search index: the search
 * worker gets its messages (and builds the index, about half a second of
 * work) once the terminal's runtime is ready (client.js dispatches
 * `mdx:runtime-settled`) and the page is idle, when the reader focuses the
 * search box, or after SEARCH_HOLD_MS, whichever comes first. On a small
 * machine the two would otherwise share the same cores. Every other worker is
 * left alone.
 *
 * It starts nothing when the address says `?snapshot=off`, when localStorage
 * says `mdx-terminal:snapshot` = `off`, or where the terminal cannot run at all
 * (file://, no WebAssembly, no workers): those pages start the runtime later,
 * from client.js, when the page is idle or the command line is focused.
 * client.js keeps `mdx-terminal:snapshot-held`.
 *
 * On every page it also keeps the lines entered before the terminal mounts.
 * The command line is in the HTML, so a reader can type into it and press
 * Enter before main.js has run; without this, that Enter did nothing and the
 * line was lost. A capturing keydown listener on the document takes each such
 * line (the terminal element has no data-mdx-state until terminal.js mounts
 * it), clears the field, says in the status line that it is queued, and
 * terminal.js runs the lines once mounted (mdxEarlyInput.take()).
 */
(function () {
  var lines = [];
  document.addEventListener("keydown", function (event) {
    var input = event.target;
    if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    if (!input || !input.matches || !input.matches("[data-mdx-input]")) return;
    var terminal = input.closest("[data-mdx-component=terminal]");
    if (!terminal || terminal.dataset.mdxState) return; // mounted: terminal.js handles its keys
    event.preventDefault();
    lines.push(input.value);
    input.value = "";
    var status = terminal.querySelector("[data-mdx-status]");
    if (status) {
      status.textContent = "Starting the terminal… (" + lines.length + " queued)";
      status.hidden = false;
    }
  }, true);
  window.mdxEarlyInput = {
    /** The lines entered before the terminal mounted, oldest first; each is handed out once. */
    take: function () {
      var taken = lines;
      lines = [];
      return taken;
    },
  };
})();
(function () {
  var held = false;
  try {
    if (new URLSearchParams(location.search).get("snapshot") === "off") return;
    if (localStorage.getItem("mdx-terminal:snapshot") === "off") return;
    held = localStorage.getItem("mdx-terminal:snapshot-held") || false;
  } catch (error) {
    // storage disabled: nothing is held, and the runtime boots as on a first visit
  }
  if (location.protocol === "file:" || typeof WebAssembly !== "object" || typeof Worker !== "function") return;
  var worker;
  try {
    var script = document.currentScript;
    var url = new URL(script.dataset.worker, location.href);
    // Where this build put Pyodide: the worker starts on it (compiling it for a restore, or booting it when
    // no snapshot is held) before the manifest confirms it.
    var pyodide = script.dataset.pyodide;
    if (pyodide) url.searchParams.set("pyodide", new URL(pyodide, location.href).href);
    // And the standard library it loads Pyodide with (the build's compiled one, hooks/runtime.py).
    var stdlib = script.dataset.stdlib;
    if (pyodide && stdlib) url.searchParams.set("stdlib", new URL(stdlib, location.href).href);
    if (held) url.searchParams.set("held", held); // the key of the snapshot held
    url.searchParams.set("paint", "wait");
    worker = new Worker(url, { type: "module" });
    performance.mark("mdx:worker-created");
    whenPainted(function () {
      worker.postMessage({ type: "painted" }); // protocol.js Msg.PAINTED: the runtime's heavy start may begin
    });
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
  holdSearchIndex();
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

  /** `done` once the page has painted its content (or after a second, where paint timing is missing). */
  function whenPainted(done) {
    var called = false;
    function once() {
      if (!called) {
        called = true;
        done();
      }
    }
    try {
      new PerformanceObserver(function (list, observer) {
        if (list.getEntriesByName("first-contentful-paint").length) {
          observer.disconnect();
          once();
        }
      }).observe({ type: "paint", buffered: true });
    } catch (error) {
      // no paint timing: the worker's own limit applies
    }
    setTimeout(once, 1000);
  }

  /** Queue what the page posts to Material's search worker until the terminal is ready or search is wanted. */
  function holdSearchIndex() {
    var SEARCH_HOLD_MS = 5000;
    var NativeWorker = window.Worker;
    var held = [];
    var targets = [];
    function release() {
      if (!held) return;
      var queued = held;
      held = null;
      window.Worker = NativeWorker;
      queued.forEach(function (call) {
        NativeWorker.prototype.postMessage.apply(call.worker, call.args);
      });
      targets.forEach(function (worker) {
        delete worker.postMessage;
      });
    }
    function HoldingWorker(url, options) {
      var created = new NativeWorker(url, options);
      if (held && /\/workers\/search\.[^/]*\.js$/.test(new URL(String(url), location.href).pathname)) {
        targets.push(created);
        created.postMessage = function () {
          if (held) held.push({ worker: created, args: arguments });
          else NativeWorker.prototype.postMessage.apply(created, arguments);
        };
      }
      return created;
    }
    HoldingWorker.prototype = NativeWorker.prototype;
    window.Worker = HoldingWorker;
    document.addEventListener("mdx:runtime-settled", function () {
      // After the terminal has sent what it queued: handing the index over takes the page a moment too.
      if ("requestIdleCallback" in window) requestIdleCallback(release, { timeout: 1000 });
      else setTimeout(release, 0);
    }, { once: true });
    document.addEventListener("focusin", function (event) {
      if (event.target && event.target.matches && event.target.matches("[data-md-component=search-query]")) release();
    });
    setTimeout(release, SEARCH_HOLD_MS);
  }
})();
