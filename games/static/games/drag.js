/*
 * Dragging tiles on the player's own board, with a mouse, a pen or a finger (Pointer Events: the
 * HTML drag and drop API does not do touch), and closing the selected tile's menu by a tap
 * outside it.
 *
 * A drag begins the way a click on the tile does: it selects the tile with the same ?sel=
 * fragment, which the server draws with the spaces where the tile fits lit. So the page works
 * out no rule itself, a page costs nothing more, and a drag costs the requests of the two clicks
 * it stands for. The drop posts the action a click would: onto an empty space a place (at the
 * rotation the server drew for a lit space, else as the tile lies in the tray) or a move, onto
 * another tile a swap, onto the tray a return. A tray tile dropped onto a placed tile is posted as
 * a place too: the server refuses it and says why, as it does any refused move. A pointer that
 * moves less than a few pixels makes no drag: its click goes through as always.
 *
 * Only the viewer's own tiles, while they may arrange, are buttons (.tile-button) with the ids
 * my-space-N and my-tray-N: those are the draggable ones (touch-action: none, game.css).
 */
(function () {
  "use strict";

  var THRESHOLD = { mouse: 5, pen: 6, touch: 8 }; // pixels before a press becomes a drag
  var pressed = null; // a pointer down on a draggable tile, not (yet) a drag
  var drag = null; // the drag under way
  var swallowClick = false; // the click that ends a drag

  function game() {
    return document.getElementById("game");
  }

  // The tile `element` belongs to, if the viewer may drag it: {space, tile} or {tile}.
  function draggable(element) {
    var button = element && element.closest && element.closest(".seat.mine .tile-button");
    if (!button) return null;
    var box = button.closest("[data-tile]");
    var tile = box ? Number(box.getAttribute("data-tile")) : NaN;
    var space = /^my-space-(\d+)$/.exec(button.id);
    if (space) return { space: Number(space[1]), tile: tile };
    if (/^my-tray-\d+$/.test(button.id)) return { tile: tile };
    return null;
  }

  function isPlaced(source) {
    return source.space !== undefined;
  }

  function buttonOf(source) {
    var id = isPlaced(source) ? "my-space-" + source.space : "my-tray-" + source.tile;
    return document.getElementById(id);
  }

  function selectionOf(source) {
    return isPlaced(source) ? "s" + source.space : "t" + source.tile;
  }

  // What the page shows picked up ("t12", "s7" or ""), as the server drew it.
  function drawnSelection() {
    var picked = document.querySelector('#game .seat.mine [aria-pressed="true"]');
    var match = picked && /^my-(tray|space)-(\d+)$/.exec(picked.id);
    return match ? match[1].charAt(0) + match[2] : "";
  }

  // Show the game with `selection` ("" for none), as the click on a tile (or on Deselect) does.
  function showSelection(selection) {
    var element = game();
    if (!element) return Promise.resolve();
    var query = selection ? "?sel=" + selection : "";
    window.history.replaceState(window.history.state, "", window.location.pathname + query);
    return htmx.ajax("GET", element.getAttribute("data-fragment-url") + query, {
      source: element,
      target: "#game",
      swap: "outerHTML",
    });
  }

  // The space (by its place in the board, which an empty one shows with no id) or the tray under
  // the pointer: by their boxes, whatever is drawn over them.
  function targetAt(x, y) {
    var seat = document.querySelector("#game .seat.mine");
    if (!seat) return null;
    var spaces = seat.querySelectorAll(".board .space-box");
    for (var index = 0; index < spaces.length; index++) {
      if (inside(spaces[index], x, y)) return { space: index };
    }
    var tray = seat.querySelector(".tray");
    return tray && inside(tray, x, y) ? { tray: true } : null;
  }

  function inside(element, x, y) {
    var box = element.getBoundingClientRect();
    return x >= box.left && x < box.right && y >= box.top && y < box.bottom;
  }

  function targetElement(target) {
    var seat = document.querySelector("#game .seat.mine");
    if (!seat || !target) return null;
    if (target.tray) return seat.querySelector(".tray");
    return seat.querySelectorAll(".board .space-box")[target.space];
  }

  document.addEventListener("pointerdown", function (event) {
    swallowClick = false;
    if (drag || !event.isPrimary || event.button !== 0) return;
    var source = draggable(event.target);
    if (source && event.pointerType === "touch") holdTheFinger(event.target);
    pressed = source && {
      source: source,
      id: event.pointerId,
      type: event.pointerType,
      x: event.clientX,
      y: event.clientY,
    };
  });

  document.addEventListener("pointermove", function (event) {
    if (drag && event.pointerId === drag.id) {
      event.preventDefault();
      return follow(event.clientX, event.clientY);
    }
    if (!pressed || event.pointerId !== pressed.id) return;
    if (event.pointerType === "mouse" && event.buttons === 0) {
      pressed = null; // let go where the page did not see it (outside the window)
      return;
    }
    var limit = THRESHOLD[pressed.type] || THRESHOLD.mouse;
    if (Math.hypot(event.clientX - pressed.x, event.clientY - pressed.y) < limit) return;
    begin(pressed);
    pressed = null;
    follow(event.clientX, event.clientY);
  });

  document.addEventListener("pointerup", function (event) {
    if (pressed && event.pointerId === pressed.id) pressed = null;
    if (drag && event.pointerId === drag.id) {
      swallowTheClick(event.pointerType);
      drop(event.clientX, event.clientY);
    }
  });

  document.addEventListener("pointercancel", function (event) {
    if (pressed && event.pointerId === pressed.id) pressed = null;
    if (drag && event.pointerId === drag.id) cancel();
  });

  document.addEventListener("keydown", function (event) {
    if (drag && event.key === "Escape") {
      event.stopImmediatePropagation();
      cancel();
    }
  }, true);

  // A finger's touch events keep going to the element it touched first, even once the selection
  // has redrawn it and it is out of the page: there, while it drags, its moves are no scroll (nor
  // a fling when it lets go quickly, which would take the next tap for the one that stops it).
  function holdTheFinger(element) {
    var still = function (event) {
      if (drag && event.cancelable) event.preventDefault();
    };
    var done = function () {
      element.removeEventListener("touchmove", still);
      element.removeEventListener("touchend", done);
      element.removeEventListener("touchcancel", done);
    };
    element.addEventListener("touchmove", still, { passive: false });
    element.addEventListener("touchend", done);
    element.addEventListener("touchcancel", done);
  }

  // The end of a drag is no click on the tile, which holds the pointer: a mouse's click comes
  // with its pointerup, before any timer; a finger's from the browser's tap, if it took the drag
  // for one, soon after. A new press is a new click.
  function swallowTheClick(pointerType) {
    swallowClick = true;
    setTimeout(function () {
      swallowClick = false;
    }, pointerType === "touch" ? 800 : 0);
  }
  window.addEventListener("click", function (event) {
    if (swallowClick) {
      swallowClick = false;
      event.preventDefault();
      event.stopPropagation();
    }
  }, true);

  function begin(press) {
    var button = buttonOf(press.source);
    if (!button || !window.htmx) return;
    // The tile as it would lie on the board (a tray's tiles are drawn smaller), under the finger.
    var space = document.querySelector("#game .seat.mine .board .space-box");
    var size = Math.max(
      (space || button).getBoundingClientRect().width,
      button.getBoundingClientRect().width
    );
    var ghost = document.createElement("div");
    ghost.className = "drag-ghost";
    ghost.setAttribute("aria-hidden", "true");
    var picture = button.querySelector("svg");
    if (picture) ghost.appendChild(picture.cloneNode(true));
    ghost.style.width = ghost.style.height = size + "px";
    document.body.appendChild(ghost);
    document.body.classList.add("dragging");
    drag = {
      source: press.source,
      id: press.id,
      ghost: ghost,
      grip: { x: size / 2, y: size / 2 },
      before: drawnSelection(),
      target: null,
    };
    holdPointer();
    var selection = selectionOf(press.source);
    drag.selected = selection === drag.before ? Promise.resolve() : showSelection(selection);
  }

  // The tile keeps the pointer (and a finger's moves) while it is dragged, also once the
  // selection has redrawn it.
  function holdPointer() {
    var button = buttonOf(drag.source);
    if (!button) return;
    button.classList.add("drag-source");
    try {
      button.setPointerCapture(drag.id);
    } catch (error) {
      // the pointer is gone already: its pointerup or pointercancel ends the drag
    }
  }
  document.addEventListener("htmx:afterSettle", function () {
    if (drag) {
      holdPointer();
      mark(drag.target);
    }
  });

  function follow(x, y) {
    drag.ghost.style.transform = "translate(" + (x - drag.grip.x) + "px, " + (y - drag.grip.y) + "px)";
    var target = targetAt(x, y);
    if (JSON.stringify(target) !== JSON.stringify(drag.target)) mark(target);
  }

  function mark(target) {
    Array.prototype.forEach.call(document.querySelectorAll(".drop-target"), function (element) {
      element.classList.remove("drop-target");
    });
    drag.target = target;
    var element = targetElement(target);
    var values = action(drag.source, target, false);
    if (!element || !values) return;
    // A tray tile over a placed one is no place to drop it (dropped there, the server says why).
    if (values.type === "place" && element.hasAttribute("data-tile")) return;
    element.classList.add("drop-target");
  }

  function finish() {
    var ended = drag;
    drag = null;
    ended.ghost.remove();
    document.body.classList.remove("dragging");
    var marked = document.querySelectorAll(".drop-target, .drag-source");
    Array.prototype.forEach.call(marked, function (element) {
      element.classList.remove("drop-target", "drag-source");
    });
    return ended;
  }

  // Dropped nowhere, or back where it was: the game as it was shown before the drag.
  function cancel() {
    var ended = finish();
    var restore = function () {
      if (drawnSelection() !== ended.before) showSelection(ended.before);
    };
    ended.selected.then(restore, restore);
  }

  function drop(x, y) {
    var target = targetAt(x, y);
    if (!action(drag.source, target, false)) return cancel();
    var ended = finish();
    var post = function () {
      var values = action(ended.source, target, true);
      var element = game();
      if (!values || !element) return;
      values.version = element.getAttribute("data-version");
      // Where the player's focus goes: the tile where it now lies.
      var focus = target.tray ? "my-tray-" + ended.source.tile : "my-space-" + target.space;
      var button = document.getElementById(focus);
      if (button) button.focus({ preventScroll: true });
      htmx
        .ajax("POST", element.getAttribute("data-act-url"), {
          source: element,
          target: "#game",
          swap: "outerHTML",
          values: values,
        })
        .then(function () {
          var landed = document.getElementById(focus);
          if (landed && document.activeElement !== landed) landed.focus({ preventScroll: true });
          // A refused drop draws nothing picked up: nor may the address say so (live.js would
          // pick it up again after a push).
          if (!drawnSelection()) {
            window.history.replaceState(window.history.state, "", window.location.pathname);
          }
        });
    };
    ended.selected.then(post, post);
  }

  // The action of dropping `source` on `target`, or null for none. `final`: as posted, once the
  // selection is drawn (which says the rotation at which a tray tile fits the space).
  function action(source, target, final) {
    if (!target) return null;
    if (target.tray) return isPlaced(source) ? { type: "return", space: source.space } : null;
    var space = target.space;
    if (space === source.space) return null;
    var box = targetElement(target);
    var occupied = box && box.hasAttribute("data-tile");
    if (!isPlaced(source)) {
      var rotation = final ? fittingRotation(source, space) : 0;
      return { type: "place", tile_id: source.tile, space: space, rotation: rotation };
    }
    return occupied
      ? { type: "swap", space_a: source.space, space_b: space }
      : { type: "move", from_space: source.space, to_space: space };
  }

  function fittingRotation(source, space) {
    var button = document.getElementById("my-space-" + space);
    try {
      var drawn = JSON.parse(button.getAttribute("hx-vals"));
      if (drawn.type === "place" && drawn.tile_id === source.tile) return drawn.rotation;
    } catch (error) {
      // not drawn for this tile: as it lies
    }
    return 0;
  }

  // The selected tile's menu closes on a tap outside it that does nothing else (a tap on a
  // button, a link or a field does its own thing, which draws the game again anyway).
  document.addEventListener("click", function (event) {
    if (!document.querySelector("#game .tile-menu") || !window.htmx) return;
    var controls = "button, a, input, select, textarea, label, summary, [hx-get], [hx-post], .tile-menu";
    if (event.target.closest(controls)) return;
    showSelection("");
  });
})();
