/*
 * Every change to the game said politely to screen readers: the newest entry of the move log
 * when a push or an answer brings a new one ("brian took a red cross from column 4"), "Your
 * move" when the turn comes to the player, and their queued draft when it changes. One live
 * region outside the redrawn game area, so a redraw never repeats what it said. Its own words
 * come from Django's JavaScript catalog (gettext), in the page's language.
 */
(function () {
  "use strict";

  var region = null;
  var lastNumber = null;
  var myTurn = null;

  function newest() {
    var entry = document.querySelector("#move-log[data-page='1'] .log-entry");
    return entry ? { number: Number(entry.getAttribute("data-number")), text: entry.querySelector("span").textContent.trim() } : null;
  }

  function isMyTurn() {
    return !!document.querySelector("#game-status .your-turn");
  }

  function say(words) {
    region = region || document.getElementById("game-announcer");
    if (!region || !words.length) return;
    region.textContent = ""; // the same words again are still news
    setTimeout(function () {
      region.textContent = words.join(". ") + ".";
    }, 50);
  }

  // The player's own queued draft (draft_ahead.html's data-queue), said when it changes.
  var lastQueue = null;
  function queueWords() {
    var panel = document.getElementById("draft-ahead");
    return panel ? panel.getAttribute("data-queue") : null;
  }

  function listen() {
    var words = [];
    var queue = queueWords();
    if (queue !== null && lastQueue !== null && queue !== lastQueue) {
      // Translators: said to a screen reader; "tiles" is the queued tiles in words, in order.
      words.push(queue ? interpolate(gettext("Your queue: %(tiles)s"), { tiles: queue }, true) : gettext("Your queue is empty"));
    }
    if (queue !== null) lastQueue = queue;
    var entry = newest();
    if (entry && lastNumber !== null && entry.number > lastNumber) words.push(entry.text);
    if (entry) lastNumber = Math.max(lastNumber || 0, entry.number);
    var turn = isMyTurn();
    if (turn && myTurn === false) words.push(gettext("Your move"));
    myTurn = turn;
    say(words);
  }

  document.addEventListener("DOMContentLoaded", function () {
    region = document.getElementById("game-announcer");
    var entry = newest();
    lastNumber = entry ? entry.number : 0;
    myTurn = isMyTurn();
    lastQueue = queueWords();
  });
  document.addEventListener("htmx:afterSettle", listen);
  document.addEventListener("htmx:wsAfterMessage", function () {
    setTimeout(listen, 0);
  });
})();
