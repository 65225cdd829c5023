/* The settings page's Web Push switch, for this browser (games/notices/webpush.py sends them).
 *
 * Turning it on asks the browser's permission, registers the service worker (/sw.js, the whole
 * site's scope), subscribes with the site's VAPID public key (#push[data-key]) and posts the
 * subscription to the site; turning it off unsubscribes and tells the site. The page's
 * X-CSRFToken (the hx-headers of <body>) goes with each post. Its words come from Django's
 * JavaScript catalog (gettext), in the page's language.
 */
(function () {
  "use strict";

  var box = document.getElementById("push");
  if (!box) return;
  var button = document.getElementById("push-toggle");
  var state = document.getElementById("push-state");
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    state.textContent = gettext("This browser cannot receive push notifications.");
    return;
  }

  function csrfToken() {
    try {
      return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"];
    } catch (error) {
      return "";
    }
  }

  function post(url, data) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      body: JSON.stringify(data),
    }).then(function (response) {
      // Translators: why push notifications could not be turned on, shown after "Could not turn
      // them on: "; "status" is an HTTP status code, such as 500.
      if (!response.ok) throw new Error(interpolate(gettext("the site answered %(status)s"), { status: response.status }, true));
    });
  }

  function applicationServerKey() {
    var text = box.getAttribute("data-key").replace(/-/g, "+").replace(/_/g, "/");
    var raw = atob(text + "===".slice((text.length + 3) % 4));
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return bytes;
  }

  // The registration once its worker is active (subscribing needs an active one).
  function registration() {
    return navigator.serviceWorker
      .register(box.getAttribute("data-worker"), { scope: "/" })
      .then(function () {
        return navigator.serviceWorker.ready;
      });
  }

  function show(subscription, problem) {
    button.hidden = false;
    button.disabled = false;
    if (Notification.permission === "denied") {
      button.hidden = true;
      state.textContent = gettext("This browser blocks notifications from this site (see its site settings).");
    } else if (subscription) {
      button.textContent = gettext("Turn off push notifications in this browser");
      state.textContent = gettext("On: this browser gets push notifications, even with no tab open.");
    } else {
      button.textContent = gettext("Turn on push notifications in this browser");
      if (problem) {
        // Translators: push notifications could not be turned on; "problem" says why, in the
        // browser's words or the site's ("the site answered 500").
        state.textContent = interpolate(gettext("Could not turn them on: %(problem)s."), { problem: problem }, true);
      } else {
        // Translators: the state of a setting that is turned off.
        state.textContent = pgettext("setting", "Off.");
      }
    }
    box.setAttribute("data-subscribed", subscription ? "true" : "false");
  }

  function current() {
    return navigator.serviceWorker.getRegistration("/").then(function (found) {
      return found ? found.pushManager.getSubscription() : null;
    });
  }

  function turnOn() {
    return Notification.requestPermission().then(function (permission) {
      if (permission !== "granted") return show(null);
      return registration()
        .then(function (found) {
          return found.pushManager.subscribe({
            userVisibleOnly: true,
            applicationServerKey: applicationServerKey(),
          });
        })
        .then(function (subscription) {
          return post(box.getAttribute("data-subscribe"), subscription.toJSON()).then(function () {
            show(subscription);
          });
        });
    });
  }

  function turnOff(subscription) {
    var endpoint = subscription.endpoint;
    return subscription.unsubscribe().then(function () {
      return post(box.getAttribute("data-unsubscribe"), { endpoint: endpoint }).then(function () {
        show(null);
      });
    });
  }

  button.addEventListener("click", function () {
    button.disabled = true;
    current()
      .then(function (subscription) {
        return subscription ? turnOff(subscription) : turnOn();
      })
      .catch(function (error) {
        current().then(function (subscription) {
          show(subscription, error && error.message ? error.message : String(error));
        });
      });
  });
  current().then(
    function (subscription) {
      show(subscription);
    },
    function () {
      show(null);
    }
  );
})();
