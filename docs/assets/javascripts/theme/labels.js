/* Accessible names and roles Material's templates and scripts leave out.
 *
 * - The search dialog gets a name. The header stays in place under instant
 *   navigation, so once per load is enough.
 * - Each code block's toolbar (<nav class="md-code__nav">, holding the copy
 *   button) is not a navigation landmark: a page of twenty code blocks would
 *   otherwise offer twenty unnamed "navigation" landmarks.
 * - A code annotation's marker (a link showing only a CSS-drawn number) is
 *   named "Annotation N".
 * - A code block, table or figure wider than its column (common on a phone) can be
 *   focused, so that it scrolls by keyboard; it stops being a tab stop once
 *   it fits again.
 *
 * Material adds these after each page is shown (a full load or an in-site
 * click), so a MutationObserver settles them as they appear.
 */
(function () {
  document.querySelectorAll(".md-search[role=dialog]").forEach(function (el) {
    el.setAttribute("aria-label", "Search");
  });

  function within(root, selector) {
    var found = Array.prototype.slice.call(root.querySelectorAll(selector));
    if (root.matches && root.matches(selector)) found.push(root);
    return found;
  }

  function settle(root) {
    within(root, "nav.md-code__nav:not([role])").forEach(function (el) {
      el.setAttribute("role", "none");
    });
    within(root, "a.md-annotation__index:not([aria-label])").forEach(function (el) {
      var id = el.querySelector("[data-md-annotation-id]");
      el.setAttribute("aria-label", "Annotation " + (id ? id.getAttribute("data-md-annotation-id") : ""));
    });
    within(root, SCROLLERS).forEach(function (el) {
      sized.observe(el);
    });
  }

  var SCROLLERS = ".md-typeset__scrollwrap, .md-typeset pre > code";

  /* Material takes code blocks out of the tab order on devices without hover
     (phones); a phone with a keyboard or switch access still has to scroll them. */
  function keepScrollable(el) {
    if (el.scrollWidth > el.clientWidth) {
      if (!el.hasAttribute("tabindex")) {
        el.dataset.mdxScrollable = "1";
        el.tabIndex = 0;
      }
    } else if (el.dataset.mdxScrollable) {
      el.removeAttribute("tabindex");
      delete el.dataset.mdxScrollable;
    }
  }

  var sized = new ResizeObserver(function (entries) {
    entries.forEach(function (entry) {
      keepScrollable(entry.target);
    });
  });

  settle(document);
  new MutationObserver(function (records) {
    records.forEach(function (record) {
      if (record.type === "attributes") {
        if (record.target.matches(SCROLLERS)) keepScrollable(record.target);
        return;
      }
      record.addedNodes.forEach(function (node) {
        if (node.nodeType === 1) settle(node);
      });
    });
  }).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["tabindex"] });
})();
