{% load static %}/* The service worker of Microchip Online (served at /sw.js by games/notices/views.py, scope /).
 *
 * It shows the Web Push messages the site sends (games/notices/webpush.py: JSON with title,
 * body, url, tag) as notifications, and a click on one opens the game: a window of the site
 * already showing it is focused; otherwise one of the site's windows goes there, or a new one
 * opens. It caches nothing.
 */
"use strict";

var ICON = "{% static 'microchip/favicon-turn.svg' %}";

self.addEventListener("install", function () {
  self.skipWaiting();
});

self.addEventListener("activate", function (event) {
  event.waitUntil(self.clients.claim());
});

self.addEventListener("push", function (event) {
  var message = {};
  if (event.data) {
    try {
      message = event.data.json();
    } catch (error) {
      message = { body: event.data.text() };
    }
  }
  event.waitUntil(
    self.registration.showNotification(message.title || "Microchip Online", {
      body: message.body || "",
      tag: message.tag || undefined,
      icon: ICON,
      data: { url: message.url || "/" },
    })
  );
});

// Open the game of a notification: focus a window that shows it, else take one of the site's
// windows there, else open a new one. Only addresses of this site are opened.
function openGame(url) {
  var target = new URL(url || "/", self.location.origin);
  if (target.origin !== self.location.origin) target = new URL("/", self.location.origin);
  return self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (windows) {
    var showing = windows.filter(function (client) {
      return new URL(client.url).pathname === target.pathname;
    })[0];
    if (showing) return showing.focus();
    var other = windows.filter(function (client) {
      return "navigate" in client;
    })[0];
    if (other) {
      return other
        .navigate(target.href) // refused for a window this worker does not control
        .then(function (client) {
          return client ? client.focus().catch(function () {}) : self.clients.openWindow(target.href);
        })
        .catch(function () {
          return self.clients.openWindow(target.href);
        });
    }
    return self.clients.openWindow(target.href);
  });
}

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var opening = openGame(event.notification.data && event.notification.data.url);
  try {
    event.waitUntil(opening);
  } catch (error) {
    // an event made by a test, not the browser: nothing to wait for
  }
});
