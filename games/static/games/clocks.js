/*
 * The players' clocks tick in the browser between pushes (templates/games/partials/clock.html).
 *
 * The server draws each clock as of a moment: its time left then (data-left, in seconds, at
 * data-at), whether it runs (data-running), and when that next changes (data-flips: a weekend
 * or a vacation begins or ends). Every second the page counts down from there; a clock that
 * stops at data-flips stops, one that starts there starts. Pushes redraw the clocks with every
 * change of the turn, so nothing here asks the server. The end of a vacation and other times
 * drawn for every viewer alike are in UTC (time[data-local]); they are put in the reader's time.
 */
(function () {
  "use strict";

  var UNITS = [["day", 86400], ["hour", 3600], ["minute", 60]];

  function count(number, unit) {
    return number + " " + unit + (number === 1 ? "" : "s");
  }

  // As microchip_site/words.py duration_words: the two largest units, to the minute.
  function words(seconds) {
    seconds = Math.max(0, Math.floor(seconds));
    if (seconds < 60) return count(seconds, "second");
    var parts = [];
    UNITS.forEach(function (pair) {
      var number = Math.floor(seconds / pair[1]);
      seconds -= number * pair[1];
      if (number) parts.push(count(number, pair[0]));
    });
    return parts.slice(0, 2).join(" ");
  }

  function leftNow(clock, now) {
    var left = parseFloat(clock.getAttribute("data-left"));
    var at = Date.parse(clock.getAttribute("data-at"));
    var flips = clock.hasAttribute("data-flips") ? Date.parse(clock.getAttribute("data-flips")) : null;
    var running = clock.getAttribute("data-running") === "1";
    var ran = 0;
    if (running) {
      ran = (flips !== null ? Math.min(now, flips) : now) - at;
    } else if (flips !== null && now > flips) {
      ran = now - flips;
    }
    var runsNow = flips !== null && now >= flips ? !running : running;
    return { seconds: left - Math.max(0, ran) / 1000, running: runsNow };
  }

  function tick() {
    var now = Date.now();
    document.querySelectorAll("[data-clock]").forEach(function (clock) {
      var shown = clock.querySelector(".clock-left");
      if (!shown || isNaN(parseFloat(clock.getAttribute("data-left")))) return;
      var state = leftNow(clock, now);
      var text = words(state.seconds);
      if (shown.textContent !== text) shown.textContent = text;
      clock.classList.toggle("stopped", !state.running);
      clock.classList.toggle("out", state.seconds <= 0);
    });
  }

  // As the pages say times ("Mon 7 Dec, 16:37"), in the browser's time zone.
  var LOCAL = {
    weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23",
  };

  function localise() {
    document.querySelectorAll("time[data-local]").forEach(function (time) {
      var moment = new Date(time.getAttribute("datetime"));
      if (isNaN(moment.getTime())) return;
      time.textContent = moment.toLocaleString("en-GB", LOCAL);
      time.title = moment.toString();
      time.removeAttribute("data-local");
    });
  }

  function redrawn() {
    localise();
    tick();
  }

  document.addEventListener("DOMContentLoaded", function () {
    redrawn();
    window.setInterval(tick, 1000);
  });
  document.addEventListener("htmx:afterSettle", redrawn);
  document.addEventListener("htmx:oobAfterSwap", redrawn);
  document.addEventListener("htmx:wsAfterMessage", redrawn);
})();
