/*
 * The game page on a small screen (game.css, "Small screens").
 *
 * - The other players' boards are folded under a button each (seat.html's .board-toggle), and
 *   open one at a time: opening one folds the one open before, pressing it again folds it. Which
 *   one is open lives in the browser only, while answers and pushes redraw the boards folded;
 *   so it is kept in sessionStorage for the page's address and put back after every swap, as
 *   news.js does with its highlights. On a wide screen every board shows and the buttons are
 *   hidden, so the choice waits there until the window is narrow again.
 * - The status line and the turn's buttons are docked at the bottom of the window; the page
 *   leaves that much room under its end (and under what the focus scrolls to), measured each
 *   time the bar is redrawn, since its words take one line or three.
 */
(function () {
  "use strict";

  var KEY = "microchip-open-board-";
  var inPage = {}; // where sessionStorage is refused (private mode): until the page is left

  function key() {
    return KEY + window.location.pathname;
  }

  function openBoard() {
    try {
      return sessionStorage.getItem(key()) || "";
    } catch (error) {
      return inPage[key()] || "";
    }
  }

  function keep(number) {
    inPage[key()] = number;
    try {
      sessionStorage.setItem(key(), number);
    } catch (error) {
      /* kept in the page only */
    }
  }

  function showBoards() {
    var open = openBoard();
    document.querySelectorAll("[data-board-toggle]").forEach(function (toggle) {
      var expanded = toggle.getAttribute("data-board-toggle") === open;
      var seat = toggle.closest(".seat");
      toggle.setAttribute("aria-expanded", expanded ? "true" : "false");
      if (seat) seat.classList.toggle("folded", !expanded);
    });
  }

  function roomForTheBar() {
    var bar = document.querySelector(".action-bar");
    var docked = bar && window.getComputedStyle(bar).position === "fixed";
    var height = docked ? bar.getBoundingClientRect().height : 0;
    document.documentElement.style.setProperty("--action-bar-height", Math.ceil(height) + "px");
  }

  function redrawn() {
    showBoards();
    roomForTheBar();
  }

  document.addEventListener("click", function (event) {
    var toggle = event.target.closest && event.target.closest("[data-board-toggle]");
    if (!toggle) return;
    var number = toggle.getAttribute("data-board-toggle");
    keep(openBoard() === number ? "" : number);
    showBoards();
  });

  document.addEventListener("DOMContentLoaded", redrawn);
  // A swap draws the boards folded: the new board gets the old one's classes until htmx
  // settles it, then its own; so unfold it again after each step, before the next paint.
  ["htmx:afterSwap", "htmx:oobAfterSwap", "htmx:afterSettle", "htmx:wsAfterMessage"].forEach(
    function (name) {
      document.addEventListener(name, redrawn);
    }
  );
  window.addEventListener("resize", roomForTheBar);
})();
