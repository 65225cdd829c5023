/* The guided game's guide (templates/first_visit/guide.html): asked again from the server
 * whenever the game's version changes (a move's answer, a live push, a resync), since each step
 * is read from the game's real state there; and its pointer, the outline on the part of the
 * page the step is about (#guide[data-point]), put back after every redraw of the game.
 *
 * While a step is to do, the guide floats over the bottom of the window: its height goes into
 * --guide-height (the page's room below its end and its scroll padding, first_visit.css), and
 * when a new step's part of the page is off screen (or under the guide), it is scrolled into
 * view, once per step: a player who scrolls away is not pulled back by the next push. */
(function () {
  "use strict";
  var shown = null;
  var asking = false;
  var pointedAt = null; // the step whose part of the page was last brought into view
  var sizes = window.ResizeObserver ? new ResizeObserver(measure) : null;

  function guide() { return document.getElementById("guide"); }

  function version() {
    var game = document.getElementById("game");
    return game ? game.getAttribute("data-version") : null;
  }

  function measure() {
    var panel = guide();
    var floating = panel && panel.classList.contains("floating");
    document.documentElement.style.setProperty(
      "--guide-height", floating ? Math.ceil(panel.getBoundingClientRect().height) + "px" : "0px");
  }

  function watchSize() {
    var panel = guide();
    if (sizes) {
      sizes.disconnect();
      if (panel) sizes.observe(panel);
    }
    measure();
  }

  /* How far to scroll so that `target` lies in the part of the window that the guide (and a
   * phone's turn bar) leaves clear: 0 when it is there already. */
  function distance(target) {
    var box = target.getBoundingClientRect();
    var bottom = window.innerHeight - (parseFloat(getComputedStyle(document.documentElement)
      .getPropertyValue("--action-bar-height")) || 0);
    var panel = guide();
    if (panel && panel.classList.contains("floating")) {
      var over = panel.getBoundingClientRect();
      // Only where the guide covers it: beside it, the target may go down to the window's foot.
      if (box.right > over.left && box.left < over.right) bottom = Math.min(bottom, over.top);
    }
    var margin = 12;
    if (box.top < 0) return box.top - margin;
    if (box.bottom > bottom) {
      // A target taller than the clear part shows its top.
      return Math.min(box.bottom - bottom + margin, box.top - margin);
    }
    return 0;
  }

  function bringIntoView(target, step) {
    if (step === pointedAt) return;
    pointedAt = step;
    var by = distance(target);
    if (!by) return;
    var still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    window.scrollBy({ top: by, behavior: still ? "auto" : "smooth" });
  }

  function point() {
    document.querySelectorAll(".guide-target").forEach(function (element) {
      element.classList.remove("guide-target");
    });
    var panel = guide();
    var selector = panel && panel.getAttribute("data-point");
    if (!selector) return;
    var target = document.querySelector(selector);
    if (!target) return;
    target.classList.add("guide-target");
    var title = panel.querySelector(".guide-head");
    bringIntoView(target, selector + "|" + (title ? title.textContent : ""));
  }

  function ask() {
    var panel = guide();
    if (!panel || asking || !window.htmx) return;
    asking = true;
    htmx.ajax("GET", panel.getAttribute("data-url"), { target: "#guide", swap: "outerHTML" })
      .then(function () { asking = false; watchSize(); point(); }, function () { asking = false; });
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
    watchSize();
    point();
    new MutationObserver(check).observe(document.getElementById("main") || document.body, {
      subtree: true, childList: true, attributes: true, attributeFilter: ["data-version"],
    });
    // The guide's own buttons (skip, show again, "I see my score") swap it without a move.
    document.body.addEventListener("htmx:afterSettle", function () { watchSize(); point(); });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
