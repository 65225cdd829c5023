/*
 * The players' clocks tick in the browser between pushes (templates/games/partials/clock.html).
 *
 * A running clock carries its deadline (data-deadline) and the pauses before it (data-pauses:
 * "start/end" pairs of ISO instants, the player's weekends off and vacations, merged): the time
 * left is the time to the deadline less what of those pauses is still to come, so the page
 * counts it down every second, stands still in a pause and runs again after it, without asking
 * the server. Pushes redraw the clocks with every change of the turn or of a vacation. Times
 * drawn for every viewer alike are in UTC (time[data-local]): they are put in the reader's time.
 * Both in the page's language: the words of Django's JavaScript catalog (ngettext), the dates
 * of the browser's Intl for the page's <html lang>.
 */
(function () {
  "use strict";

  var UNITS = [["day", 86400], ["hour", 3600], ["minute", 60]];

  // As infra/words.py _count: each unit's own call, so that makemessages finds them.
  function count(number, unit) {
    var words;
    if (unit === "day") {
      words = ngettext("%(number)s day", "%(number)s days", number);
    } else if (unit === "hour") {
      words = ngettext("%(number)s hour", "%(number)s hours", number);
    } else if (unit === "minute") {
      words = ngettext("%(number)s minute", "%(number)s minutes", number);
    } else {
      words = ngettext("%(number)s second", "%(number)s seconds", number);
    }
    return interpolate(words, { number: number }, true);
  }

  // As infra/words.py duration_words: the two largest units, to the minute.
  function words(seconds) {
    seconds = Math.max(0, Math.floor(seconds));
    if (seconds < 60) return count(seconds, "second");
    var parts = [];
    UNITS.forEach(function (pair) {
      var number = Math.floor(seconds / pair[1]);
      seconds -= number * pair[1];
      if (number) parts.push(count(number, pair[0]));
    });
    if (parts.length < 2) return parts[0];
    // Translators: a length of time in two units, the larger first: "2 days 6 hours".
    return interpolate(pgettext("duration", "%(larger)s %(smaller)s"), { larger: parts[0], smaller: parts[1] }, true);
  }

  function pausesOf(clock) {
    return (clock.getAttribute("data-pauses") || "").split(" ").filter(Boolean).map(function (pair) {
      var ends = pair.split("/");
      return [Date.parse(ends[0]), Date.parse(ends[1])];
    });
  }

  // The counting time from `now` to the deadline, and whether the clock runs at `now`.
  function state(clock, now) {
    var deadline = Date.parse(clock.getAttribute("data-deadline"));
    var left = Math.max(0, deadline - now);
    var running = true;
    pausesOf(clock).forEach(function (pause) {
      var from = Math.max(pause[0], now), to = Math.min(pause[1], deadline);
      if (to > from) left -= to - from;
      if (pause[0] <= now && now < pause[1]) running = false;
    });
    return { seconds: left / 1000, running: running };
  }

  function tick() {
    var now = Date.now();
    document.querySelectorAll("[data-clock][data-deadline]").forEach(function (clock) {
      var shown = clock.querySelector(".clock-left");
      if (!shown || isNaN(Date.parse(clock.getAttribute("data-deadline")))) return;
      var found = state(clock, now);
      var text = words(found.seconds);
      if (shown.textContent !== text) shown.textContent = text;
      clock.classList.toggle("stopped", !found.running);
      clock.classList.toggle("out", found.seconds <= 0);
    });
  }

  // As the pages say times ("Mon 7 Dec, 16:37" in English), in the browser's time zone and the
  // page's language.
  var LOCAL = {
    weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23",
  };

  // The page's language (<html lang>: "en-gb", "es", "fr", "de"), as the browser knows it.
  function pageLanguage() {
    var lang = document.documentElement.getAttribute("lang") || "en-GB";
    try {
      return Intl.DateTimeFormat.supportedLocalesOf([lang]).length ? lang : "en-GB";
    } catch (error) {
      return "en-GB"; // not a language tag
    }
  }

  function localise() {
    document.querySelectorAll("time[data-local]").forEach(function (time) {
      var moment = new Date(time.getAttribute("datetime"));
      if (isNaN(moment.getTime())) return;
      time.textContent = moment.toLocaleString(pageLanguage(), LOCAL);
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
