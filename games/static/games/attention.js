/* While the site is open: the tab says when it is your move, and a hidden tab can notify you.
 *
 * - The tab's title and favicon follow the nav badge (templates/games/partials/badge.html): its
 *   data-turns is how many games wait for the player's move. With one or more, the title reads
 *   "(2) Your move · <the page's title>" and the favicon has a red dot. Messages of the table
 *   talk that came while the tab was hidden add "3 new messages · " (chat.js). The badge comes with the
 *   page and is replaced live by the page's socket (games/live/consumers.py, "user" messages;
 *   live.js fires "live:user" on <body> after each, with its HTML).
 * - Browser notifications, opt-in per device (the button on the settings page, which asks the
 *   browser's permission and remembers the choice in localStorage): while the tab is hidden, a
 *   "user" message with a notice that it is the player's move, that they must finish their board,
 *   or that a game ended, shows a notification; a badge that counts more games waiting for the
 *   player (e.g. on the page of that very game, which gets no notice of it) shows one too.
 *   On the page of a game, its end (the results drawn in) notifies too. Clicking a notification
 *   focuses the tab and opens the game.
 */
(function () {
  "use strict";

  var OPT_IN = "microchip:notifications"; // "on" once the player turned them on, on this device
  var GENERIC_DELAY_MS = 800; // a notice with the game's name usually follows a badge at once
  // The words are the page's language's (Django's JavaScript catalog, loaded before this file).
  var TITLES = {
    your_turn: gettext("Your move"),
    finish: gettext("Finish your board"),
    game_over: gettext("Game over"),
  };

  var baseTitle = document.title;
  var icon = document.getElementById("favicon");
  var plainIcon = icon ? icon.getAttribute("href") : null;
  var turnIcon = icon ? icon.getAttribute("data-turn-href") : null;
  var shownTurns = null;
  var genericTimer = null;

  function turnsIn(root) {
    var badge = root.querySelector("#turn-badge");
    var count = badge ? parseInt(badge.getAttribute("data-turns"), 10) : NaN;
    return isNaN(count) ? null : count;
  }

  function showTurns() {
    var turns = turnsIn(document) || 0;
    var chat = parseInt(document.body.getAttribute("data-chat-unread"), 10) || 0; // chat.js
    var title = baseTitle;
    if (chat > 0) {
      // Translators: the start of the tab's title, before " · " and the page's title.
      var messages = ngettext("%(count)s new message", "%(count)s new messages", chat);
      title = interpolate(messages, { count: chat }, true) + " · " + title;
    }
    if (turns > 0) {
      // Translators: the start of the tab's title: how many games wait for the player's move.
      title = interpolate(gettext("(%(count)s) Your move"), { count: turns }, true) + " · " + title;
    }
    if (document.title !== title) document.title = title;
    var href = turns > 0 ? turnIcon : plainIcon;
    if (icon && href && icon.getAttribute("href") !== href) icon.setAttribute("href", href);
    var before = shownTurns;
    shownTurns = turns;
    return before;
  }

  function supported() {
    return "Notification" in window;
  }

  function enabled() {
    try {
      return supported() && Notification.permission === "granted" && localStorage.getItem(OPT_IN) === "on";
    } catch (error) {
      return false; // storage refused
    }
  }

  function notify(title, body, url, tag) {
    var notification;
    try {
      notification = new Notification(title, { body: body, tag: tag, icon: turnIcon || undefined });
    } catch (error) {
      return; // e.g. a browser that only notifies from a service worker
    }
    notification.onclick = function () {
      window.focus();
      if (url && window.location.pathname !== url) window.location.assign(url);
      notification.close();
    };
  }

  function onUserMessage(html) {
    var before = showTurns();
    if (!document.hidden || !enabled() || !html) return;
    var template = document.createElement("template");
    template.innerHTML = html;
    var notice = template.content.querySelector(".notice[data-kind]");
    var title = notice ? TITLES[notice.getAttribute("data-kind")] : null;
    if (title) {
      clearTimeout(genericTimer); // this one says which game
      var url = notice.getAttribute("data-url");
      var body = notice.textContent.replace(/\s+/g, " ").trim();
      notify(title, body, url, "game:" + url);
      return;
    }
    var turns = turnsIn(template.content);
    if (turns !== null && before !== null && turns > before) {
      clearTimeout(genericTimer);
      genericTimer = setTimeout(function () {
        var body = interpolate(
          ngettext("A game waits for your move.", "%(count)s games wait for your move.", turns),
          { count: turns },
          true
        );
        notify(TITLES.your_turn, body, null, "turns");
      }, GENERIC_DELAY_MS);
    }
  }

  // The page of a game gets no notice about it (it shows the game): its end comes as the
  // results drawn into the game area, which a hidden page tells as a notification.
  var resultsShown = !!document.querySelector("#game .results");
  document.addEventListener("htmx:wsAfterMessage", function () {
    if (resultsShown || !document.querySelector("#game .results")) return;
    resultsShown = true;
    if (!document.hidden || !enabled()) return;
    var heading = document.querySelector("#game .game-title");
    var name = heading ? heading.textContent.trim() : "";
    var url = window.location.pathname;
    // Translators: a notification's text; "game" is the name of the game, as its players typed it.
    var body = name ? interpolate(gettext("%(game)s is over."), { game: name }, true) : gettext("The game is over.");
    notify(TITLES.game_over, body, url, "game:" + url);
  });

  document.body.addEventListener("live:user", function (event) {
    onUserMessage(event.detail && event.detail.html);
  });
  document.addEventListener("chat:unread", showTurns); // the table talk's unread messages
  showTurns();

  // The settings page's switch (templates/accounts/settings.html).
  var toggle = document.getElementById("notifications-toggle");
  var state = document.getElementById("notifications-state");
  function describe() {
    if (!toggle) return;
    if (!supported()) {
      toggle.hidden = true;
      state.textContent = gettext("This browser cannot show notifications.");
    } else if (Notification.permission === "denied") {
      toggle.hidden = true;
      state.textContent = gettext("This browser blocks notifications from this site (see its site settings).");
    } else if (enabled()) {
      toggle.textContent = gettext("Turn off notifications in this browser");
      state.textContent = gettext("On: a hidden tab of this site notifies you.");
    } else {
      toggle.textContent = gettext("Turn on notifications in this browser");
      // Translators: the state of a setting that is turned off.
      state.textContent = pgettext("setting", "Off.");
    }
  }
  if (toggle) {
    toggle.hidden = false;
    toggle.addEventListener("click", function () {
      if (enabled()) {
        localStorage.removeItem(OPT_IN);
        describe();
        return;
      }
      Notification.requestPermission().then(function (permission) {
        if (permission === "granted") localStorage.setItem(OPT_IN, "on");
        describe();
      });
    });
    describe();
  }
})();
