/* The home page's replayed game (templates/first_visit/showcase.html): every frame is in the
 * page, the last one shown; this shows them one after the other, a frame every 1.6 s, and
 * rests on the last for a while before it starts again. Nothing moves for a visitor who asked
 * for less motion, nor in a tab out of sight. */
(function () {
  "use strict";
  function start() {
    var showcase = document.getElementById("showcase");
    if (!showcase) return;
    if (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
    var last = parseInt(showcase.getAttribute("data-last"), 10);
    if (!(last > 0)) return;
    var frame = last;
    var rest = 0;
    function show(number) {
      for (var i = 0; i <= last; i++) {
        showcase.querySelectorAll(".f" + i).forEach(function (part) { part.hidden = i !== number; });
      }
    }
    setInterval(function () {
      if (document.hidden) return;
      if (frame === last && rest < 3) { rest++; return; }
      rest = 0;
      frame = frame === last ? 0 : frame + 1;
      show(frame);
    }, 1600);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
