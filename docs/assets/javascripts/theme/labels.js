/* Accessible names Material's templates leave out: the search dialog. The
   header stays in place under instant navigation, so once per load is enough. */
document.querySelectorAll(".md-search[role=dialog]").forEach(function (el) {
  el.setAttribute("aria-label", "Search");
});
