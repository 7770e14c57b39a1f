// The review page: draws the pre-screen's boxes over the screenshot, lets the reviewer
// draw more by dragging (and remove them), and maps the keys A (approve), R (redact),
// X (reject) and S (skip); U (undo) is with the undo toast.
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

  // Dragging on the picture draws a box, in image pixels: with a mouse, a finger or a
  // pen (pointer events; the frame's touch-action keeps a drag from scrolling the page).
  var start = null, ghost = null, pointer = null;
  function point(event) {
    var rect = frame.getBoundingClientRect();
    return [((event.clientX - rect.left) / rect.width) * width, ((event.clientY - rect.top) / rect.height) * height];
  }
  function spanned(from, to) {
    return [Math.min(from[0], to[0]), Math.min(from[1], to[1]), Math.abs(to[0] - from[0]), Math.abs(to[1] - from[1])];
  }
  frame.addEventListener("pointerdown", function (event) {
    if (event.target.closest(".delete-box") || (event.pointerType === "mouse" && event.button !== 0)) return;
    start = point(event);
    pointer = event.pointerId;
    ghost = overlay([start[0], start[1], 0, 0], "drawn");
    frame.setPointerCapture(event.pointerId);
    event.preventDefault();
  });
  frame.addEventListener("pointermove", function (event) {
    if (!start || event.pointerId !== pointer) return;
    place(ghost, spanned(start, point(event)));
  });
  function finish(event) {
    if (!start || event.pointerId !== pointer) return;
    var box = spanned(start, point(event)).map(Math.round);
    if (event.type === "pointerup" && box[2] > 3 && box[3] > 3) keep(box, ghost); else ghost.remove();
    start = null;
    pointer = null;
  }
  frame.addEventListener("pointerup", finish);
  frame.addEventListener("pointercancel", finish);

  // A drawn box carries its own × button, which takes it out again.
  function keep(box, element) {
    drawn.push(box);
    var remove = document.createElement("button");
    remove.type = "button";
    remove.className = "delete-box";
    remove.textContent = "×";
    remove.setAttribute("aria-label", "Remove this box");
    remove.setAttribute("data-testid", "delete-box");
    remove.addEventListener("click", function () {
      drawn.splice(drawn.indexOf(box), 1);
      element.remove();
    });
    element.appendChild(remove);
  }

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
