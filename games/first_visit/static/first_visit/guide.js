/* The guided game's guide (templates/first_visit/guide.html): asked again from the server
 * whenever the game's version changes (a move's answer, a live push, a resync), since each step
 * is read from the game's real state there; and its pointer, the outline on the part of the
 * page the step is about (#guide[data-point]), put back after every redraw of the game. */
(function () {
  "use strict";
  var shown = null;
  var asking = false;

  function guide() { return document.getElementById("guide"); }

  function version() {
    var game = document.getElementById("game");
    return game ? game.getAttribute("data-version") : null;
  }

  function point() {
    document.querySelectorAll(".guide-target").forEach(function (element) {
      element.classList.remove("guide-target");
    });
    var panel = guide();
    var selector = panel && panel.getAttribute("data-point");
    if (!selector) return;
    var target = document.querySelector(selector);
    if (target) target.classList.add("guide-target");
  }

  function ask() {
    var panel = guide();
    if (!panel || asking || !window.htmx) return;
    asking = true;
    htmx.ajax("GET", panel.getAttribute("data-url"), { target: "#guide", swap: "outerHTML" })
      .then(function () { asking = false; point(); }, function () { asking = false; });
  }

  function check() {
    var now = version();
    if (now !== shown) {
      var first = shown === null;
      shown = now;
      if (!first) ask();
    }
    point();
  }

  function start() {
    shown = version();
    point();
    new MutationObserver(check).observe(document.getElementById("main") || document.body, {
      subtree: true, childList: true, attributes: true, attributeFilter: ["data-version"],
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
