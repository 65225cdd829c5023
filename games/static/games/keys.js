// Keyboard play on the game page: Tab reaches every tile and space, Enter acts on it (buttons do
// that by themselves), R rotates the focused tile on your own board, and C confirms a draft.
(function () {
  "use strict";

  // A swap replaces the focused button with its redrawn twin (same id). htmx refocuses it after
  // its own answers, but a live push can land first or after; so put the focus back on the
  // element with the id that last had it, whenever a swap leaves the focus on nothing.
  var focusedId = null;
  document.addEventListener("focusin", function (event) {
    focusedId = event.target && event.target.id ? event.target.id : null;
  });
  // When the focused control is gone (a drafted tile left the pool, a confirmed draft's button),
  // the focus goes where the player's next step is, not to the page's body.
  function successor(id) {
    if (/^draw-\d+$/.test(id) || id === "confirm-draft" || id === "undo-draft") {
      return (
        document.getElementById("confirm-draft") ||
        document.querySelector(".seat.mine .tile-box.last-tile .tile-button") ||
        document.querySelector(".pool .draftable")
      );
    }
    return null;
  }
  function restoreFocus() {
    var active = document.activeElement;
    if (!focusedId || (active && active !== document.body)) return;
    var element = document.getElementById(focusedId) || successor(focusedId);
    if (element) element.focus({ preventScroll: true });
  }
  document.addEventListener("htmx:afterSettle", restoreFocus);
  document.addEventListener("htmx:oobAfterSwap", function () {
    setTimeout(restoreFocus, 0);
  });

  document.addEventListener("keydown", function (event) {
    if ((event.key === "c" || event.key === "C") && !event.ctrlKey && !event.metaKey && !event.altKey) {
      var confirm = document.getElementById("confirm-draft");
      var typing = event.target.closest && event.target.closest("input, textarea, select");
      if (confirm && !typing) {
        event.preventDefault();
        confirm.focus({ preventScroll: true });
        confirm.click();
      }
      return;
    }
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
