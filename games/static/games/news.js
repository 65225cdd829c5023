/*
 * What changed since the player's last visit, highlighted until their next move.
 *
 * The game page, when a player opens it after others moved, says which tiles moved and which
 * columns of the pool lost one (#game[data-news-tiles], [data-news-columns], drawn only on that
 * page load). Pushes and htmx answers redraw the parts of the page, so the highlights are kept
 * in sessionStorage for the game and put back after every swap; the player's own move (a post
 * to the game's act URL) puts them away.
 */
(function () {
  "use strict";

  function game() {
    return document.getElementById("game");
  }

  function key(element) {
    return "microchip-news-" + element.getAttribute("data-game");
  }

  function read(element) {
    try {
      return JSON.parse(sessionStorage.getItem(key(element)) || "null");
    } catch (error) {
      return null;
    }
  }

  function words(value) {
    return (value || "").split(" ").filter(function (word) {
      return word !== "";
    });
  }

  function remember() {
    var element = game();
    if (!element || !element.hasAttribute("data-news-tiles")) return;
    var news = {
      tiles: words(element.getAttribute("data-news-tiles")),
      columns: words(element.getAttribute("data-news-columns")),
    };
    try {
      sessionStorage.setItem(key(element), JSON.stringify(news));
    } catch (error) {
      /* private mode: highlights last until the next redraw */
    }
    element.removeAttribute("data-news-tiles"); // a later redraw of #game must not renew them
  }

  function paint() {
    var element = game();
    if (!element) return;
    var news = read(element);
    if (!news) return;
    news.tiles.forEach(function (tile) {
      element.querySelectorAll('[data-tile="' + tile + '"]').forEach(function (box) {
        box.classList.add("news");
      });
    });
    news.columns.forEach(function (column) {
      var found = element.querySelector('.column[data-column="' + column + '"]');
      if (found) found.classList.add("news");
    });
  }

  function forget() {
    var element = game();
    if (!element) return;
    try {
      sessionStorage.removeItem(key(element));
    } catch (error) {
      /* nothing kept */
    }
    element.querySelectorAll(".news").forEach(function (box) {
      box.classList.remove("news");
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    remember();
    paint();
  });
  document.addEventListener("htmx:afterSettle", paint);
  document.addEventListener("htmx:oobAfterSwap", paint);
  document.addEventListener("htmx:wsAfterMessage", paint);
  document.addEventListener("htmx:beforeRequest", function (event) {
    var element = game();
    var path = event.detail.requestConfig && event.detail.requestConfig.path;
    if (element && path === element.getAttribute("data-act-url")) forget();
  });
})();
