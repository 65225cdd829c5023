// Keyboard play on the game page: Tab reaches every tile and space, Enter acts on it (buttons do
// that by themselves; a tray tile chosen sends the focus on to the board), R (Shift+R) turns the
// focused tile on your own board clockwise (anticlockwise), the arrow keys move around your board
// and around the pool, Escape deselects, C confirms a draft, Ctrl+Z and Ctrl+Shift+Z undo and
// redo changes to your board.
(function () {
  "use strict";

  // A tile on the player's own board, while they may arrange it: its button (games/partials/space.html).
  var PLACED = '.tile-button[id^="my-space-"]';

  // A swap replaces the focused button with its redrawn twin (same id). htmx refocuses it after
  // its own answers, but a live push can land first or after; so put the focus back on the
  // element with the id that last had it, whenever a swap leaves the focus on nothing.
  var focusedId = null;
  var focusedPoolTile = null; // a tile of the pool has no id: its data-tile
  document.addEventListener("focusin", function (event) {
    focusedId = event.target && event.target.id ? event.target.id : null;
    var box = event.target.closest && event.target.closest(".pool .tile-box");
    focusedPoolTile = box ? box.getAttribute("data-tile") : null;
  });
  // When the focused control is gone (a drafted tile left the pool, a confirmed draft's button),
  // the focus goes where the player's next step is, not to the page's body.
  function successor(id) {
    if (/^draw-\d+$/.test(id) || id === "confirm-draft" || id === "undo-draft") {
      return (
        document.getElementById("confirm-draft") ||
        document.querySelector(".seat.mine .tile-box.last-tile .tile-button") ||
        document.querySelector(".seat.mine .space-box.last-tile .tile-button") ||
        document.querySelector(".pool .draftable")
      );
    }
    // A tile returned from its menu: to the tray, where it now lies.
    var returned = /^tile-menu-return-(\d+)$/.exec(id);
    if (returned) return document.getElementById("my-tray-" + returned[1]);
    // Drafting ahead: a queued tile's button that is gone (it reached the top or the bottom of
    // the queue, or left it), to its other buttons, then to the tiles still to choose from.
    var queued = /^ahead-(add|up|down|remove|clear)-?(\d*)$/.exec(id);
    if (queued) {
      var tile = queued[2];
      return (
        (tile && (document.getElementById("ahead-up-" + tile) || document.getElementById("ahead-down-" + tile) ||
          document.getElementById("ahead-remove-" + tile))) ||
        document.querySelector("#draft-ahead .ahead-choices .tile-button") ||
        document.getElementById("ahead-confirm")
      );
    }
    return null;
  }
  function restoreFocus() {
    var active = document.activeElement;
    if (active && active !== document.body) return;
    if (focusedId) {
      var element = document.getElementById(focusedId) || successor(focusedId);
      if (element) element.focus({ preventScroll: true });
    } else if (focusedPoolTile !== null) {
      var box = document.querySelector('.pool .tile-box[data-tile="' + focusedPoolTile + '"]');
      if (box) focusPoolTile(box);
    }
  }
  document.addEventListener("htmx:afterSettle", restoreFocus);
  document.addEventListener("htmx:oobAfterSwap", function () {
    setTimeout(restoreFocus, 0);
  });

  // Choosing a tile in the tray (Enter, Space or a click) leads on to the board: once the page
  // shows it picked up, the focus goes to the first space where it fits (where it fits nowhere,
  // the board's first control), so the arrow keys walk the board at once and Enter places it.
  var toTheBoard = null;
  document.addEventListener(
    "click",
    function (event) {
      var tile = event.target.closest && event.target.closest(".seat.mine .tray-tiles .tile-button");
      toTheBoard = tile && tile.getAttribute("aria-pressed") !== "true" ? tile.id : null;
    },
    true
  );
  function focusTheBoard() {
    var picked = toTheBoard && document.getElementById(toTheBoard);
    if (!picked || picked.getAttribute("aria-pressed") !== "true") return; // not drawn yet
    toTheBoard = null;
    var space =
      document.querySelector(".seat.mine .board .space-box.legal button") ||
      document.querySelector(".seat.mine .board button");
    if (space) space.focus({ preventScroll: true });
  }
  // After the settling: until then a redrawn space keeps the classes of the one it replaced.
  document.addEventListener("htmx:afterSettle", function () {
    setTimeout(focusTheBoard, 0);
  });

  document.addEventListener("keydown", function (event) {
    if ((event.key === "c" || event.key === "C") && !event.ctrlKey && !event.metaKey && !event.altKey) {
      var confirm = document.getElementById("confirm-draft");
      var typing = event.target.closest && event.target.closest("input, textarea, select");
      if (confirm && !typing) {
        event.preventDefault();
        confirm.focus({ preventScroll: true });
        confirm.click();
      }
      return;
    }
    // Ctrl+Z undoes the last change to the board, Ctrl+Shift+Z (or Ctrl+Y) redoes it; in a text
    // field they stay the field's own.
    var key = event.key.toLowerCase();
    if ((event.ctrlKey || event.metaKey) && !event.altKey && (key === "z" || key === "y")) {
      var field = event.target.closest && event.target.closest("input, textarea, select");
      var button = document.getElementById(key === "y" || event.shiftKey ? "redo-arranging" : "undo-arranging");
      if (field || !button || button.disabled) return;
      event.preventDefault();
      button.click();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "Escape") return deselect(event);
    if (ARROWS[event.key] !== undefined) {
      return moveInThePool(event, event.key) || moveOnTheBoard(event, ARROWS[event.key]);
    }
    if (event.key !== "r" && event.key !== "R") return;
    // The focused tile, or the one whose menu has the focus.
    var active = document.activeElement;
    var menu = active && active.closest(".tile-menu");
    var tile = menu
      ? menu.closest(".space-box").querySelector(PLACED)
      : active && active.closest(PLACED);
    var game = document.getElementById("game");
    if (!tile || !game || !window.htmx) return;
    event.preventDefault();
    // R turns clockwise, Shift+R anticlockwise (three quarter turns clockwise). The request is
    // the game's, not the tile's: a tile's own hx-vals (a swap, with another tile selected) would
    // override these.
    var values = { type: "rotate", space: tile.id.slice("my-space-".length), version: game.dataset.version };
    values.quarter_turns = event.shiftKey ? 3 : 1;
    htmx.ajax("POST", game.dataset.actUrl, { source: game, target: "#game", swap: "outerHTML", values: values });
  });

  // The arrow keys move the focus around the player's own board, a space at a time.
  var ARROWS = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -5, ArrowDown: 5 };
  function moveOnTheBoard(event, step) {
    var id = document.activeElement && document.activeElement.id;
    var match = /^my-space-(\d+)$/.exec(id || "");
    if (!match) return;
    var index = Number(match[1]);
    var row = Math.floor(index / 5);
    var sideways = step === 1 || step === -1;
    event.preventDefault();
    // Past the spaces that are no button now (empty, with nothing picked up to place there).
    for (var next = index + step; next >= 0 && next <= 24; next += step) {
      if (sideways && Math.floor(next / 5) !== row) return;
      var target = document.getElementById("my-space-" + next);
      if (target) return target.focus();
    }
  }

  // In the pool, left and right go to the next column that has tiles (to its tile nearest the
  // same row), up and down along the column, past the places of taken tiles (kept empty, so
  // that a tile stays where it was dealt). A tile that can be drafted is a button (Enter drafts
  // it); the others take the focus too, so that the pool can be read tile by tile.
  function tilesOf(column) {
    return Array.prototype.filter.call(column.children, function (place) {
      return !place.classList.contains("taken");
    });
  }
  function moveInThePool(event, key) {
    var box = document.activeElement && document.activeElement.closest(".pool .tile-box");
    var column = box && box.closest(".column");
    if (!column) return false;
    event.preventDefault();
    var places = Array.prototype.slice.call(column.children);
    var row = places.indexOf(box);
    var next = null;
    if (key === "ArrowUp" || key === "ArrowDown") {
      var tiles = tilesOf(column);
      next = tiles[tiles.indexOf(box) + (key === "ArrowDown" ? 1 : -1)];
    } else {
      var columns = Array.prototype.slice.call(column.parentElement.children);
      var step = key === "ArrowRight" ? 1 : -1;
      for (var at = columns.indexOf(column) + step; at >= 0 && at < columns.length; at += step) {
        var found = tilesOf(columns[at]);
        if (found.length) {
          var rows = Array.prototype.slice.call(columns[at].children);
          next = found.reduce(function (best, tile) {
            return Math.abs(rows.indexOf(tile) - row) < Math.abs(rows.indexOf(best) - row) ? tile : best;
          });
          break;
        }
      }
    }
    if (next) focusPoolTile(next);
    return true;
  }
  function focusPoolTile(box) {
    var button = box.querySelector("button");
    if (!button) box.setAttribute("tabindex", "-1");
    (button || box).focus({ preventScroll: false });
  }

  // Escape puts down what the player picked up (a tray tile or a placed tile).
  function deselect(event) {
    var game = document.getElementById("game");
    var picked = document.querySelector('.seat.mine [aria-pressed="true"]');
    if (!game || !window.htmx || !picked) return;
    event.preventDefault();
    // From the tile's menu, which goes away with it, the focus goes back to the tile.
    var active = document.activeElement;
    if (active && active.closest(".tile-menu")) picked.focus({ preventScroll: true });
    var url = game.dataset.fragmentUrl;
    htmx.ajax("GET", url, { target: "#game", swap: "outerHTML" }).then(function () {
      window.history.replaceState(window.history.state, "", window.location.pathname);
    });
  }
})();
