// The review page: draws the pre-screen's boxes over the screenshot, lets the reviewer
// draw more by dragging, and maps the keys A (approve), R (redact), X (reject) and S (skip).
(function () {
  "use strict";
  var frame = document.getElementById("review-image");
  var width = Number(frame.dataset.width), height = Number(frame.dataset.height);
  var findings = JSON.parse(document.getElementById("findings-json").textContent);
  var drawn = [];

  function place(element, box) {
    element.style.left = (box[0] / width) * 100 + "%";
    element.style.top = (box[1] / height) * 100 + "%";
    element.style.width = (box[2] / width) * 100 + "%";
    element.style.height = (box[3] / height) * 100 + "%";
  }
  function overlay(box, className) {
    var element = document.createElement("div");
    element.className = "box " + className;
    element.setAttribute("data-testid", "box");
    place(element, box);
    frame.appendChild(element);
    return element;
  }
  var marks = findings.map(function (finding) { return overlay(finding.box, "found"); });
  document.querySelectorAll(".finding-box").forEach(function (checkbox) {
    checkbox.addEventListener("change", function () {
      marks[Number(checkbox.dataset.index)].classList.toggle("off", !checkbox.checked);
    });
  });

  // Dragging on the picture draws a box, in image pixels.
  var start = null, ghost = null;
  function point(event) {
    var rect = frame.getBoundingClientRect();
    return [((event.clientX - rect.left) / rect.width) * width, ((event.clientY - rect.top) / rect.height) * height];
  }
  frame.addEventListener("mousedown", function (event) {
    start = point(event);
    ghost = overlay([start[0], start[1], 0, 0], "drawn");
    event.preventDefault();
  });
  window.addEventListener("mousemove", function (event) {
    if (!start) return;
    var now = point(event);
    place(ghost, [Math.min(start[0], now[0]), Math.min(start[1], now[1]), Math.abs(now[0] - start[0]), Math.abs(now[1] - start[1])]);
  });
  window.addEventListener("mouseup", function (event) {
    if (!start) return;
    var now = point(event);
    var box = [Math.min(start[0], now[0]), Math.min(start[1], now[1]), Math.abs(now[0] - start[0]), Math.abs(now[1] - start[1])];
    if (box[2] > 3 && box[3] > 3) drawn.push(box.map(Math.round)); else ghost.remove();
    start = null;
  });

  function chosenBoxes() {
    var boxes = [];
    document.querySelectorAll(".finding-box").forEach(function (checkbox) {
      if (checkbox.checked) boxes.push(findings[Number(checkbox.dataset.index)].box);
    });
    return boxes.concat(drawn);
  }
  document.getElementById("redact-form").addEventListener("submit", function () {
    document.getElementById("boxes").value = JSON.stringify(chosenBoxes());
  });

  var reason = document.getElementById("reject-reason");
  document.addEventListener("keydown", function (event) {
    if (event.target === reason || event.ctrlKey || event.metaKey || event.altKey) return;
    var key = event.key.toLowerCase();
    if (key === "a") document.getElementById("approve-form").requestSubmit();
    else if (key === "r") document.getElementById("redact-form").requestSubmit();
    else if (key === "s") document.getElementById("skip-form").requestSubmit();
    else if (key === "x") {
      event.preventDefault();
      if (reason.value.trim()) document.getElementById("reject-form").requestSubmit();
      else reason.focus();
    }
  });
})();
