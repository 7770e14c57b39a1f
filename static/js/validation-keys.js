// Validation by keyboard: Y or N answers the next question not yet answered (skipped
// while typing in a field). The legend above the questions says so.
document.addEventListener("keydown", function (event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  var key = event.key.toLowerCase();
  if (key !== "y" && key !== "n") return;
  var typing = event.target.closest("input[type=text], input:not([type]), textarea, select");
  if (typing) return;
  var groups = document.querySelectorAll("fieldset[data-yes-no]");
  for (var i = 0; i < groups.length; i += 1) {
    if (!groups[i].querySelector("input:checked")) {
      var choice = groups[i].querySelector("input[value=" + (key === "y" ? "yes" : "no") + "]");
      choice.checked = true;
      choice.focus();
      event.preventDefault();
      return;
    }
  }
});
