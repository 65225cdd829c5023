// Keyboard steps for the replay page: ← and → go back and forward, Home and End to the deal and
// the end. Each key follows the link with that id, so htmx (or, without it, the browser) does
// the rest; a key typed into a form field is left alone. A file, not inline, for a strict CSP.
(function () {
  "use strict";
  var LINKS = {
    ArrowLeft: "replay-prev",
    ArrowRight: "replay-next",
    Home: "replay-first",
    End: "replay-last",
  };
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    var id = LINKS[event.key];
    if (!id) return;
    var target = event.target;
    if (target && target.closest && target.closest("input, select, textarea, [contenteditable]")) {
      return;
    }
    var link = document.getElementById(id);
    if (link && link.tagName === "A") {
      event.preventDefault();
      link.click();
    }
  });
})();
