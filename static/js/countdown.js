// Turns each <time data-countdown datetime="…"> into the time left and the deadline in
// the worker's own clock ("38 min left · due at 14:05"), updated every half minute.
// Without script the page still says the deadline in UTC.
(function () {
  "use strict";
  var clocks = document.querySelectorAll("time[data-countdown]");
  if (!clocks.length) return;

  function left(ms) {
    var minutes = Math.ceil(ms / 60000);
    if (minutes < 60) return minutes + " min left";
    var hours = Math.floor(minutes / 60);
    return hours + " h " + (minutes % 60) + " min left";
  }
  function show() {
    var now = Date.now();
    clocks.forEach(function (clock) {
      var due = new Date(clock.getAttribute("datetime"));
      if (isNaN(due.getTime())) return;
      var at = due.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
      var ms = due.getTime() - now;
      clock.classList.toggle("soon", ms > 0 && ms < 5 * 60000);
      clock.classList.toggle("over", ms <= 0);
      clock.textContent = ms > 0 ? left(ms) + " · due at " + at : "time is up (was due at " + at + ")";
      clock.title = due.toLocaleString();
    });
  }
  show();
  setInterval(show, 30000);
})();
