// The menu folds away on a narrow screen; without scripts it simply stays open. Loaded
// right after the menu (not deferred), so that a phone never paints it open first.
(function () {
  "use strict";
  var menu = document.getElementById("nav-menu");
  if (!menu) return;
  var narrow = window.matchMedia("(max-width: 899px)");
  function fit() { menu.open = !narrow.matches; }
  fit();
  narrow.addEventListener("change", fit);
})();
