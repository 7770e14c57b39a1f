// Counts the seconds the task page is visible, so pay per hour reflects real work
// rather than time a tab sat in the background. Sent with the submission.
(function () {
  var field = document.getElementById("active_seconds");
  if (!field) return;
  var active = 0;
  var since = document.visibilityState === "visible" ? Date.now() : null;
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      since = Date.now();
    } else if (since !== null) {
      active += Date.now() - since;
      since = null;
    }
  });
  document.getElementById("task-form").addEventListener("submit", function () {
    var total = active + (since !== null ? Date.now() - since : 0);
    field.value = Math.round(total / 1000);
  });
})();
