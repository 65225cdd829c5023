/* Live updates of the page: the protocol is described in games/live/__init__.py.
 *
 * htmx's ws extension opens the page's socket (#live, ws-connect), reconnects it after a network
 * failure, and swaps the fragments it receives into the page by id. This file adds what it does
 * not know about: the game's version, which the page shows in #game[data-version].
 *
 * - Each message is JSON. The "live" extension (declared on #live only) hands htmx the HTML of a
 *   push that follows the version the page shows, and nothing for a push the page already has.
 * - A push further ahead means one went missing: the page asks for a resync ({"type": "sync"}),
 *   and the server answers with the whole game at its current version.
 * - Each (re)connection carries the version (?v=N), so the server resyncs a page that fell
 *   behind while it was away. A page that wakes up (tab shown again, back from the cache, network
 *   back) syncs too, and reconnects when the socket turns out to be dead.
 * - A heartbeat keeps the player's presence (the dot on their board) alive.
 * - A message on the player's own channel (badge, notice) fires "live:user" on <body>.
 * - A waiting room (#seats, no #game) swaps its seats as players join and leave; when the table
 *   starts it loads the game page in place of its own content and syncs.
 */
(function () {
  "use strict";

  var HEARTBEAT_MS = 25000; // the server forgets a presence after 60 s without one
  // Someone watching has no presence to keep: their heartbeat only mends a push their socket
  // could not draw (games/live/consumers.py `_heartbeat`), so it comes every third time. Each
  // frame a socket receives costs the server a third of a millisecond (issue 36).
  var WATCHING_BEATS_EVERY = 3;
  var SYNC_TIMEOUT_MS = 5000; // a sync without an answer means the socket is dead
  var REFUSED = [4401, 4403, 4404, 4408]; // the server said no: do not knock again
  var REPLACED = 4409; // the player's newer pages took this one's place: back when looked at
  var TOO_MANY = 4429; // too many sockets or connections from here: try again in a while
  var TOO_MANY_WAIT_MS = 45000;
  var EXTENSION_RETRIES = [1006, 1011, 1012, 1013]; // closes the ws extension retries itself

  // This page's name on its socket and on its moves: the socket skips the push of a move this
  // page made, since the move's answer brings the page there (games/live/changes.py).
  var pageId = Array.prototype.map
    .call(window.crypto.getRandomValues(new Uint8Array(12)), function (byte) {
      return ("0" + byte.toString(16)).slice(-2);
    })
    .join("");
  var socket = null; // the newest WebSocket
  var wrapper = null; // the ws extension's handle on it (send, reconnect)
  var refused = false;
  var replaced = false;
  var syncTimer = null;

  function game() {
    return document.getElementById("game");
  }

  function shownVersion() {
    var element = game();
    var version = element ? parseInt(element.getAttribute("data-version"), 10) : NaN;
    return isNaN(version) ? null : version;
  }

  // A waiting room shows its seats at a version of the table (#seats[data-version]).
  function lobbyVersion() {
    var element = document.getElementById("seats");
    var version = element && !game() ? parseInt(element.getAttribute("data-version"), 10) : NaN;
    return isNaN(version) ? null : version;
  }

  // Every connection and reconnection says which version the page shows.
  var createWebSocket = htmx.createWebSocket;
  htmx.createWebSocket = function (url) {
    var version = shownVersion();
    var lobby = lobbyVersion();
    url += (url.indexOf("?") < 0 ? "?" : "&") + "page=" + pageId;
    if (version !== null) {
      url += "&v=" + version + "&looks=" + encodeURIComponent(pageLooks());
    } else if (lobby !== null) {
      url += "&lobby=" + lobby;
    }
    socket = createWebSocket(url);
    return socket;
  };

  function send(message) {
    if (wrapper && socket && socket.readyState === WebSocket.OPEN) {
      wrapper.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  function reconnect() {
    if (wrapper && !refused && !(replaced && document.hidden)) {
      replaced = false;
      wrapper.reconnect();
    }
  }

  function requestSync() {
    var version = shownVersion();
    if (version === null || !send({ type: "sync", version: version })) {
      return;
    }
    clearTimeout(syncTimer);
    syncTimer = setTimeout(reconnect, SYNC_TIMEOUT_MS);
  }

  function wake() {
    if (!socket || socket.readyState === WebSocket.CLOSED) {
      reconnect();
    } else if (socket.readyState === WebSocket.OPEN) {
      requestSync();
    }
  }

  // A push draws the player's own board without their selection (a tile picked in the tray or
  // on the board, kept in the address as ?sel=); when it redraws that board, fetch the game
  // again with the selection so a forced take or another tab does not drop it.
  function selectionInAddress() {
    return new URLSearchParams(window.location.search).get("sel");
  }
  function keepSelection(html) {
    if (!selectionInAddress() || html.indexOf(" mine") < 0) return;
    // A push that redraws the board may also make htmx drop the answer of a request made from
    // the old board; so look a moment later whether the selection is drawn, and fetch it if not.
    var tries = 5;
    setTimeout(function check() {
      var element = game();
      var selection = selectionInAddress();
      if (!element || !selection) return;
      if (document.querySelector(".htmx-request")) {
        if (--tries > 0) setTimeout(check, 150); // let the request in flight land first
        return;
      }
      if (document.querySelector('.seat.mine [aria-pressed="true"]')) return;
      htmx.ajax("GET", element.getAttribute("data-fragment-url") + "?sel=" + encodeURIComponent(selection), {
        target: "#game",
        swap: "outerHTML",
      });
    }, 150);
  }

  // A passing word ("The game has started"): said over the page a few seconds, then gone by
  // itself, moving nothing (game.css, .toast).
  var TOAST_MS = 6000;
  function sayForAMoment(words) {
    var toast = document.createElement("p");
    toast.className = "toast";
    toast.setAttribute("role", "status");
    document.body.appendChild(toast);
    setTimeout(function () {
      toast.textContent = words; // a live region says what is put in it once it is there
    }, 50);
    setTimeout(function () {
      toast.classList.add("going");
    }, TOAST_MS);
    setTimeout(function () {
      toast.remove();
    }, TOAST_MS + 600);
  }

  // The waiting room's table has started: load the game page and put its content in place of
  // the waiting room's (no reload: this socket stays and carries the game from now on), say "The
  // game has started" (the last seats push's words) for a moment; then sync with the server.
  var becoming = false;
  function becomeGamePage(url) {
    if (becoming) return;
    becoming = true;
    var started = document.querySelector("#seats .started");
    var note = started ? started.textContent.trim() : "";
    window
      .fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) {
        if (!response.ok) throw new Error(String(response.status));
        return response.text();
      })
      .then(function (text) {
        var page = new DOMParser().parseFromString(text, "text/html");
        var main = page.getElementById("main");
        var here = document.getElementById("main");
        if (!main || !here || !page.getElementById("game")) throw new Error("not a game page");
        main = document.importNode(main, true);
        here.replaceWith(main);
        document.title = page.title;
        if (window.location.pathname !== url) window.history.replaceState(null, "", url);
        htmx.process(main);
        if (note) sayForAMoment(note);
        requestSync();
      })
      .catch(function () {
        window.location.assign(url); // the plain way: a page load
      });
  }

  htmx.defineExtension("live", {
    transformResponse: function (text, xhr) {
      if (xhr) {
        return text; // not a socket message
      }
      clearTimeout(syncTimer); // the socket is alive
      var message;
      try {
        message = JSON.parse(text);
      } catch (error) {
        return "";
      }
      var shown = shownVersion();
      switch (message.type) {
        case "push":
          if (shown === null || message.version <= shown) {
            return ""; // the page already shows it (its own move's answer came first)
          }
          if (message.version > shown + 1) {
            requestSync(); // a push went missing
            return "";
          }
          game().setAttribute("data-version", message.version);
          clearRefusalMarks(); // a push redraws only what changed: an earlier refusal's mark goes
          keepSelection(message.html);
          return message.html;
        case "resync":
          // A waiting room about to become the game page has no game to redraw yet: it asks for
          // the game once it shows it (becomeGamePage).
          if (shown === null || message.version < shown) return "";
          keepSelection(message.html);
          setTimeout(reportLooks, 0); // once drawn
          return message.html;
        case "user":
          // After the swap, tell the page: e.g. a list of games can refresh itself with
          // hx-trigger="live:user from:body"; attention.js reads the message's HTML.
          setTimeout(function () {
            htmx.trigger(document.body, "live:user", { html: message.html });
          }, 0);
          return message.html;
        case "presence":
          // Who has the game open, by the dots on the boards: a waiting room about to become
          // the game page has none yet (the page it loads draws them as they are).
          return game() ? message.html : "";
        case "queue": // the player's queued draft, changed on another of their pages
          return message.html;
        case "rematch": // an ended game's rematch, offered or called off: its results show it
          return document.getElementById("rematch") ? message.html : "";
        case "chat": // the table talk: chat.js places it (not a version of the game)
          document.dispatchEvent(new CustomEvent("live:chat", { detail: message }));
          return "";
        case "lobby":
          var lobby = lobbyVersion();
          if (lobby === null) return ""; // not (or no longer) a waiting room
          if (!message.started && message.version < lobby) return ""; // older than the page
          if (message.started) {
            setTimeout(function () {
              becomeGamePage(message.url);
            }, 0);
          }
          return message.html;
        default:
          return ""; // "synced", or something newer than this page
      }
    },
  });

  // A move's answer (games/play/views.py act) carries its version. The page says which version it
  // shows, so the server can answer with just the parts the move changed when nothing else
  // changed in between; an answer older than what a push already showed is dropped.
  // A move also says what the page shows of the boards and the pool, piece by piece (each
  // piece's data-look, a checksum of what it shows), so the answer brings only the pieces that
  // look different now: "status:" and its look, "pool:" or "seat-N:" and the part's look and its
  // pieces' in page order (games/drawing/cache/looks.py).
  function pageLooks() {
    var status = document.querySelector("#game-status[data-look]");
    var parts = Array.prototype.map.call(
      document.querySelectorAll("#pool[data-look], #game .seat[data-look]"),
      function (part) {
        var looks = [part.getAttribute("data-look")];
        Array.prototype.forEach.call(part.querySelectorAll("[data-look]"), function (piece) {
          looks.push(piece.getAttribute("data-look"));
        });
        return part.id + ":" + looks.join("");
      }
    );
    if (status) parts.unshift("status:" + status.getAttribute("data-look"));
    return parts.join(" ");
  }
  // The socket keeps what the page shows, so that a push brings only what looks different:
  // after a move's answer that changed the pool (its own pushes skip this page), or a resync,
  // the page tells it (games/live/consumers.py). At most once a second, with what the page
  // shows by then: each message counts against the socket's allowance (a burst of 20, then 2 a
  // second, for all the page sends), which quick moves in a row, each telling its looks, used to
  // exhaust, and the socket was closed for flooding. Looks told late only make the next push
  // bring more than it needs.
  var LOOKS_EVERY = 1000; // ms
  var looksSentAt = 0;
  var looksTimer = null;
  function reportLooks() {
    if (looksTimer !== null) return; // the report on its way will say what is shown by then
    var wait = looksSentAt + LOOKS_EVERY - Date.now();
    if (wait > 0) {
      looksTimer = setTimeout(function () {
        looksTimer = null;
        reportLooks();
      }, wait);
      return;
    }
    looksSentAt = Date.now();
    var version = shownVersion();
    if (version !== null) send({ type: "looks", version: version, looks: pageLooks() });
  }
  document.addEventListener("htmx:afterRequest", function (event) {
    var xhr = event.detail.xhr;
    if (
      xhr &&
      xhr.getResponseHeader("X-Game-Parts") === "changed" &&
      / id="pool[-"]/.test(xhr.responseText)
    ) {
      reportLooks();
    }
  });
  // A tile picked up turns the spaces of the player's board into buttons (where it may go), and
  // a move that ends the selection would get every one of them back in its answer. So the page
  // keeps the pieces a selection replaced, as they were, and puts them back just before such a
  // move says what the page shows: its answer then brings only what the move changed. A move
  // that keeps the tile picked up (a rotation) keeps them too, but for those it changed. If the
  // move's answer never comes, the page asks for the game again.
  var unpicked = null; // {version, pieces: {id: markup}, changed: {id: true}}
  var putBack = false; // pieces were put back for the move on its way
  function keepUnpicked(html) {
    var version = shownVersion();
    if (!unpicked || unpicked.version !== version) {
      unpicked = { version: version, pieces: {}, changed: {} };
    }
    var piece = /hx-swap-oob="true" id="(seat-\d+-[a-z0-9-]+)"/g;
    var found;
    while ((found = piece.exec(html))) {
      var id = found[1];
      var element = document.getElementById(id);
      // A piece a rotation changed shows a tile picked up: it is not kept as unpicked.
      if (element && !(id in unpicked.pieces) && !(id in unpicked.changed)) {
        unpicked.pieces[id] = asDrawn(element);
      }
    }
  }
  // A piece's markup as the server drew it: without the classes htmx adds while a request made
  // from it is on its way (the click that picked the tile up).
  var HTMX_CLASSES = ["htmx-request", "htmx-settling", "htmx-swapping", "htmx-added"];
  function asDrawn(element) {
    var copy = element.cloneNode(true);
    [copy].concat(Array.prototype.slice.call(copy.querySelectorAll("[class]"))).forEach(function (each) {
      HTMX_CLASSES.forEach(function (name) {
        each.classList.remove(name);
      });
    });
    return copy.outerHTML;
  }
  // A move that kept the tile picked up (a rotation): what it changed is no longer known as it
  // would look unpicked; the rest still is, at the new version.
  function carryUnpicked(html, version) {
    if (!unpicked || unpicked.version !== shownVersion() || isNaN(version)) {
      unpicked = null;
      return;
    }
    var piece = /hx-swap-oob="true" id="([a-z0-9-]+)"/g;
    var found;
    while ((found = piece.exec(html))) {
      delete unpicked.pieces[found[1]];
      unpicked.changed[found[1]] = true;
    }
    unpicked.version = version;
  }
  function putUnpickedBack(source) {
    var kept = unpicked;
    unpicked = null;
    if (!kept || kept.version !== shownVersion()) return;
    Object.keys(kept.pieces).forEach(function (id) {
      var element = document.getElementById(id);
      // The piece holding the button that makes the move stays: htmx swaps the answer from it
      // (and the move changes that piece anyway).
      if (!element || (source && element.contains(source))) return;
      var template = document.createElement("template");
      template.innerHTML = kept.pieces[id];
      var piece = template.content.firstElementChild;
      element.replaceWith(piece);
      htmx.process(piece);
      putBack = true;
    });
  }
  // The game's buttons say no address of their own (hx-post="", hx-get=""; htmx would ask the
  // page's own): the page writes it. A move (a tile placed, moved, turned...; a draft) is posted
  // to the game's (#game's data-act-url). A tile of the player's own (in the tray, my-tray-12, or
  // on the board, my-space-7) is picked up, or put down when its button is pressed, by asking for
  // the game with the selection ("?sel=t12", "?sel=s7", or none), which its button's id says;
  // the answer puts it in the address bar (HX-Push-Url).
  function gameAddress(event) {
    var button = event.detail.elt;
    var element = game();
    if (!element || !button || !button.getAttribute || !element.contains(button)) return;
    if (button.getAttribute("hx-" + event.detail.verb) !== "") return; // an address of its own
    if (event.detail.verb === "post") {
      event.detail.path = element.getAttribute("data-act-url");
      return;
    }
    var picked = /^my-(tray|space)-(\d+)$/.exec(button.id || "");
    if (event.detail.verb !== "get" || !picked) return;
    var selection = button.getAttribute("aria-pressed") === "true" ? "" : picked[1].charAt(0) + picked[2];
    event.detail.path = element.getAttribute("data-fragment-url") + (selection ? "?sel=" + selection : "");
  }
  document.addEventListener("htmx:configRequest", function (event) {
    gameAddress(event);
    var version = shownVersion();
    var kind = event.detail.parameters && event.detail.parameters.type;
    var move = game() && event.detail.path === game().getAttribute("data-act-url");
    if (event.detail.verb === "post" && move) {
      putBack = false;
      if (kind !== "rotate") putUnpickedBack(event.detail.elt); // a rotated tile stays picked up
    }
    if (version !== null) {
      event.detail.headers["X-Page-Version"] = String(version);
      event.detail.headers["X-Page-Id"] = pageId;
      var fragment = game().getAttribute("data-fragment-url");
      if (
        (event.detail.verb === "post" && event.detail.path === game().getAttribute("data-act-url")) ||
        (event.detail.verb === "get" && fragment && event.detail.path.indexOf(fragment) === 0)
      ) {
        // A move, or a tile picked up or put down (a selection): the answer brings only the
        // pieces that look different.
        event.detail.headers["X-Page-Looks"] = pageLooks();
      }
    }
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    // A drawing of the whole game (a selection, a refusal) older than what the page shows now:
    // a move's answer or a push got there while it was on its way.
    var drawn = xhr ? parseInt(xhr.getResponseHeader("X-Game-Drawn-Version"), 10) : NaN;
    var showing = shownVersion();
    if (!isNaN(drawn) && showing !== null && drawn < showing) {
      event.detail.shouldSwap = false;
      return;
    }
    var parts = xhr ? xhr.getResponseHeader("X-Game-Parts") : null;
    if (parts === "selection") {
      keepUnpicked(xhr.responseText);
    } else if (parts === "changed" && /[?&]sel=/.test(xhr.getResponseHeader("HX-Push-Url") || "")) {
      carryUnpicked(xhr.responseText, parseInt(xhr.getResponseHeader("X-Game-Version"), 10));
    } else if (xhr) {
      unpicked = null; // anything else may have drawn the board: what was kept is no longer sure
    }
    var answered = xhr ? parseInt(xhr.getResponseHeader("X-Game-Version"), 10) : NaN;
    if (isNaN(answered)) {
      return;
    }
    var shown = shownVersion();
    if (shown !== null && answered <= shown) {
      event.detail.shouldSwap = false; // a push got there first with this or a newer version
      return;
    }
    if (xhr.getResponseHeader("X-Game-Parts") === "changed" && game()) {
      game().setAttribute("data-version", answered);
      clearRefusalMarks();
    }
  });
  function clearRefusalMarks() {
    Array.prototype.forEach.call(document.querySelectorAll("#game .error-here"), function (element) {
      element.classList.remove("error-here"); // an earlier refusal's mark
    });
  }

  // A move whose answer never came (htmx dropped the request for a newer one on the game, or the
  // network failed) may still have been made: its push skips this page, which expects the
  // answer, so ask the server whether the page is behind.
  function answerLost(event) {
    var config = event.detail.requestConfig;
    if (!config || config.verb !== "post" || !game()) return;
    if (putBack) {
      // The pieces put back for it show a board the server never drew: ask for the game again
      // (answered with the pieces that differ from it).
      putBack = false;
      htmx.ajax("GET", game().getAttribute("data-fragment-url"), { target: "#game", swap: "outerHTML" });
    } else {
      requestSync();
    }
  }
  document.addEventListener("htmx:sendAbort", answerLost);
  document.addEventListener("htmx:sendError", answerLost);
  document.addEventListener("htmx:timeout", answerLost);
  // An answer that came but could not be drawn: a drawing of the game swapped in while the move
  // was on its way (a selection kept after a push) replaced the element that made the request,
  // and htmx swaps into the detached one, telling nobody. Once the answer has had its turn, a
  // page still older than it asks for a sync.
  document.addEventListener("htmx:beforeSend", function (event) {
    var config = event.detail.requestConfig;
    var xhr = event.detail.xhr;
    if (!xhr || !config || config.verb !== "post" || !game()) return;
    xhr.addEventListener("loadend", function () {
      setTimeout(function () {
        var answered = parseInt(xhr.getResponseHeader("X-Game-Version"), 10);
        var shown = shownVersion();
        if (!isNaN(answered) && shown !== null && shown < answered) requestSync();
      }, 0);
    });
  });

  // A request the server could not answer (500, 503 while its database is out of reach) or that
  // never reached it: the page says so where the player looks, and that a move was not saved
  // (nothing changed: the same move may be made again). Each a whole sentence, for the
  // translations (Django's JavaScript catalog): [after a move, after anything else].
  var TROUBLE = {
    503: [
      gettext("The site is having trouble reaching its database: your move was not saved. Try again in a few seconds."),
      gettext("The site is having trouble reaching its database. Try again in a few seconds."),
    ],
    500: [
      gettext("Something went wrong on the server: your move was not saved. Try again in a few seconds."),
      gettext("Something went wrong on the server. Try again in a few seconds."),
    ],
    0: [
      gettext("The site could not be reached: your move was not saved. Try again in a few seconds."),
      gettext("The site could not be reached. Try again in a few seconds."),
    ],
  };
  function sayTrouble(event) {
    var xhr = event.detail.xhr;
    var status = xhr ? xhr.status : 0;
    if (status && status < 500) return; // a refusal: its answer says why
    var config = event.detail.requestConfig;
    var words = (TROUBLE[status] || TROUBLE[500])[config && config.verb === "post" ? 0 : 1];
    var where = document.querySelector("#game-status .action-bar") || document.getElementById("main");
    if (!where) return;
    var line = document.getElementById("site-trouble");
    if (!line) {
      line = document.createElement("p");
      line.id = "site-trouble";
      line.className = "error";
      line.setAttribute("role", "alert");
      where.insertBefore(line, where.firstChild);
    }
    line.textContent = words;
  }
  document.addEventListener("htmx:responseError", sayTrouble);
  document.addEventListener("htmx:sendError", sayTrouble);

  // The move log: a reader of an older page keeps it (a move's turns would take them away from
  // what they read; "Newer" fetches the first page); on the first page a move's new turns are
  // added at the top, and the page keeps its length (the oldest turns go to the next page).
  function movedLogPage(target) {
    var log = target && target.closest ? target.closest("#move-log") : null;
    return log && log.getAttribute("data-page") !== "1";
  }
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    if (movedLogPage(event.detail.target)) {
      event.detail.shouldSwap = false;
    }
  });
  // A rematch's offer comes to every page of the player as a notice with its Accept and Decline;
  // the ended game's own page has it in its results already (rematch.html): the notice goes.
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    var target = event.detail.target;
    if (!target || target.id !== "live-notice") return;
    var offer = target.querySelector(".notice[data-rematch-of]");
    if (offer && game() && offer.getAttribute("data-rematch-of") === game().getAttribute("data-game")) {
      offer.remove();
    }
  });
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    var target = event.detail.target;
    if (!target || target.id !== "move-log-turns") return;
    var log = document.getElementById("move-log");
    var keep = parseInt(log.getAttribute("data-turns-per-page"), 10) || 8;
    Array.prototype.forEach.call(target.querySelectorAll(":scope > .empty-log"), function (empty) {
      empty.remove();
    });
    Array.prototype.slice.call(target.querySelectorAll(":scope > .log-turn"), keep).forEach(function (old) {
      old.remove();
    });
  });

  document.addEventListener("htmx:wsOpen", function (event) {
    wrapper = event.detail.socketWrapper;
    if (document.hidden) {
      beat(); // opened in the background: not watching yet
    }
  });

  document.addEventListener("htmx:wsClose", function (event) {
    var closed = event.detail.event;
    if (closed.target !== socket) {
      return; // an older socket, replaced already
    }
    if (REFUSED.indexOf(closed.code) >= 0) {
      refused = true;
    } else if (closed.code === REPLACED) {
      replaced = true; // a hidden tab stays quiet; shown again, it takes its place back
      if (!document.hidden) setTimeout(wake, 10000);
    } else if (closed.code === TOO_MANY) {
      setTimeout(wake, TOO_MANY_WAIT_MS + Math.random() * TOO_MANY_WAIT_MS);
    } else if (EXTENSION_RETRIES.indexOf(closed.code) < 0 && !document.hidden) {
      // A clean close (a server restart) or 4503 (Redis unreachable, try again later): come
      // back soon, not all at once. Hidden pages come back when they are shown.
      setTimeout(wake, 1000 + Math.random() * 4000);
    }
  });

  // A hidden tab is not watching: the server stops holding back emails for it (the Page
  // Visibility API); a visible one says which version its player has seen.
  function beat() {
    send({ type: "ping", version: shownVersion(), visible: !document.hidden });
  }
  var ticks = 0;
  setInterval(function () {
    ticks += 1;
    var element = game();
    var watching = element && !element.classList.contains("with-mine");
    if (!watching || ticks % WATCHING_BEATS_EVERY === 0) beat();
  }, HEARTBEAT_MS);

  document.addEventListener("visibilitychange", function () {
    beat();
    if (!document.hidden) {
      wake();
    }
  });
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      wake();
    }
  });
  window.addEventListener("online", wake);
})();
