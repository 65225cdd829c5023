// Keyboard play on the game page: Tab reaches every tile and space, Enter acts on it (buttons do
// that by themselves), and R rotates the focused tile on your own board.
(function () {
  "use strict";

  // A swap replaces the focused button with its redrawn twin (same id). htmx refocuses it after
  // its own answers, but a live push can land first or after; so put the focus back on the
  // element with the id that last had it, whenever a swap leaves the focus on nothing.
  var focusedId = null;
  document.addEventListener("focusin", function (event) {
    focusedId = event.target && event.target.id ? event.target.id : null;
  });
  function restoreFocus() {
    var active = document.activeElement;
    if (!focusedId || (active && active !== document.body)) return;
    var element = document.getElementById(focusedId);
    if (element) element.focus({ preventScroll: true });
  }
  document.addEventListener("htmx:afterSettle", restoreFocus);
  document.addEventListener("htmx:oobAfterSwap", function () {
    setTimeout(restoreFocus, 0);
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "r" && event.key !== "R") return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var tile = document.activeElement && document.activeElement.closest("[data-rotate]");
    var game = document.getElementById("game");
    if (!tile || !game || !window.htmx) return;
    event.preventDefault();
    htmx.ajax("POST", game.dataset.actUrl, {
      source: tile,
      target: "#game",
      swap: "outerHTML",
      values: { type: "rotate", space: tile.dataset.rotate, version: game.dataset.version },
    });
  });
})();
