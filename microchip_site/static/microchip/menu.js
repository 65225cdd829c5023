/*
 * The site's menu on a phone (base.html, site.css): one row, the brand, the dashboard with its
 * badge and a Menu button that shows the other links under it, and hides them again. On a wider
 * screen every link shows and the button is hidden.
 */
(function () {
  "use strict";

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("#menu-button");
    if (!button) return;
    var nav = button.closest(".site-nav");
    var open = button.getAttribute("aria-expanded") !== "true";
    button.setAttribute("aria-expanded", open ? "true" : "false");
    if (nav) nav.classList.toggle("open", open);
  });
})();
