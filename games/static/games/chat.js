/*
 * The table talk (templates/games/partials/chat.html, games/chat.py). One way in for every
 * message: the answer to writing or deleting one and each message the socket pushes
 * ({"type": "chat"}, handed on by live.js as a "live:chat" event) are placed here by their id,
 * so a message that comes both ways is shown once, and a deleted one (drawn empty) goes away.
 *
 * - Others' messages that come while the tab is hidden count as unread: the tab's title says
 *   so (attention.js reads body[data-chat-unread]); when the page is visible again, or when one
 *   comes while it is, the server is told how far the player has read (chat/read/).
 * - The socket coming back after a break may have missed messages: the list is fetched again.
 * - An own message's Delete button goes when its time is up (the server refuses it after).
 * - htmx keeps the whole talk as it is when the game area is drawn again (hx-preserve), so a
 *   message being written survives a resync.
 */
(function () {
  "use strict";

  var unread = 0;
  var readTimer = null;
  var opens = 0;

  function talk() {
    return document.getElementById("chat");
  }
  function list() {
    return document.getElementById("chat-messages");
  }

  function place(html) {
    var box = list();
    if (!box || !html) return null;
    var template = document.createElement("template");
    template.innerHTML = html.trim();
    var item = template.content.querySelector("li[id^='chat-']");
    if (!item) return null;
    var old = document.getElementById(item.id);
    if (item.hasAttribute("data-deleted")) {
      if (old) old.remove();
      return null;
    }
    var nearEnd = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
    if (old) {
      old.replaceWith(item);
    } else {
      box.appendChild(item);
    }
    htmx.process(item);
    var empty = talk().querySelector(".chat-empty");
    if (empty) empty.remove();
    var id = parseInt(item.id.slice(5), 10);
    var newest = parseInt(talk().getAttribute("data-newest"), 10) || 0;
    if (id > newest) talk().setAttribute("data-newest", String(id));
    // Down to a new message if the reader was at the end, or wrote it; not while they read back.
    if (nearEnd || item.classList.contains("mine")) box.scrollTop = box.scrollHeight;
    return item;
  }

  function showUnread() {
    if (unread > 0) {
      document.body.setAttribute("data-chat-unread", String(unread));
    } else {
      document.body.removeAttribute("data-chat-unread");
    }
    document.dispatchEvent(new CustomEvent("chat:unread"));
  }

  // Tell the server how far the player has read, a moment after the last message came.
  function markRead() {
    var element = talk();
    var url = element && element.getAttribute("data-read-url");
    if (!url) return; // not a player of this game
    clearTimeout(readTimer);
    readTimer = setTimeout(function () {
      htmx.ajax("POST", url, {
        source: element,
        swap: "none",
        values: { up_to: element.getAttribute("data-newest") || "0" },
      });
    }, 400);
  }

  document.addEventListener("live:chat", function (event) {
    var message = event.detail;
    var item = place(message.html);
    if (!item || message.mine) return;
    if (document.visibilityState === "visible") {
      markRead();
    } else {
      unread += 1;
      showUnread();
    }
  });

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "visible" || unread === 0) return;
    unread = 0;
    showUnread();
    markRead();
  });

  function showError(text) {
    var error = document.getElementById("chat-error");
    if (!error) return;
    error.textContent = text || "";
    error.hidden = !text;
  }

  document.addEventListener("htmx:afterRequest", function (event) {
    var source = event.detail.elt;
    if (!source || !source.closest || !source.closest("#chat")) return;
    if (source.matches("[data-read-url]")) return; // the read mark: nothing to show
    var xhr = event.detail.xhr;
    // Not htmx's `successful`: the site's htmx settings (base.html) swap 4xx answers, so htmx
    // calls a refusal (422, 403, 429) a success.
    if (!xhr || !xhr.status || xhr.status >= 400) {
      showError(xhr && xhr.status ? xhr.responseText : gettext("The message could not be sent: try again."));
      return;
    }
    showError("");
    place(xhr.responseText);
    if (source.matches(".chat-form")) {
      source.reset();
      var input = source.querySelector("input[name=text]");
      if (input) input.focus();
    }
  });

  // The socket came back after a break: messages may have been missed meanwhile.
  document.addEventListener("htmx:wsOpen", function () {
    opens += 1;
    var element = talk();
    var url = element && element.getAttribute("data-chat-url");
    if (opens > 1 && url && list()) {
      htmx.ajax("GET", url, { source: element, target: "#chat-messages", swap: "outerHTML" });
    }
  });

  setInterval(function () {
    var now = new Date().toISOString();
    document.querySelectorAll("#chat .chat-delete[data-until]").forEach(function (button) {
      if (new Date(button.getAttribute("data-until")).toISOString() < now) button.remove();
    });
  }, 15000);

  document.addEventListener("DOMContentLoaded", function () {
    var box = list();
    if (box) box.scrollTop = box.scrollHeight;
  });
})();
