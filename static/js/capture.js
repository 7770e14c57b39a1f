// The capture part of the screen QA task pages: add screenshots (file picker, drop,
// paste), preview, reorder and remove them, and keep the whole form as a draft on the
// server so that a reload loses nothing. The server checks everything again on submit.
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("capture-config").textContent);
  var posted = JSON.parse(document.getElementById("capture-values").textContent) || {};
  var form = document.getElementById("task-form");
  var list = document.getElementById("screen-list");
  var hidden = document.getElementById("screens_json");
  var uploadError = document.getElementById("upload-error");
  var draftStatus = document.getElementById("draft-status");
  var csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;

  // After a refused submission the page shows what was sent; otherwise the saved draft.
  var start = Array.isArray(posted.screens) ? posted : config.draft || {};
  var screens = Array.isArray(start.screens) ? start.screens.filter(function (s) { return s && s.screen; }) : [];

  function restoreFields(values) {
    if (values === posted) return; // the server already rendered these
    if (values.question) form.elements.question.value = values.question;
    if (values.answer) form.elements.answer.value = values.answer;
    (values.reasoning_types || []).forEach(function (type) {
      var box = form.querySelector("input[name=reasoning_types][value='" + type + "']");
      if (box) box.checked = true;
    });
    form.elements.no_sign_in.checked = !!values.no_sign_in;
    form.elements.no_personal_data.checked = !!values.no_personal_data;
  }

  function showError(message) {
    uploadError.textContent = message;
    uploadError.hidden = !message;
  }

  function field(label, className, value, multiline) {
    var wrapper = document.createElement("label");
    wrapper.textContent = label + " ";
    var input = document.createElement(multiline ? "textarea" : "input");
    input.className = className;
    input.value = value || "";
    if (multiline) input.rows = 2;
    wrapper.appendChild(input);
    return wrapper;
  }

  function button(text, action, index, label) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "secondary small";
    b.textContent = text;
    b.dataset.action = action;
    b.dataset.index = index;
    if (label) b.setAttribute("aria-label", label);
    return b;
  }

  function render() {
    list.innerHTML = "";
    screens.forEach(function (entry, index) {
      var item = document.createElement("li");
      item.className = "screen-item";
      item.dataset.testid = "screen-item";
      item.setAttribute("data-testid", "screen-item");
      var img = document.createElement("img");
      img.src = entry.thumbnail_url;
      img.alt = "Screen " + (index + 1);
      item.appendChild(img);
      var fields = document.createElement("div");
      fields.className = "screen-fields";
      fields.appendChild(field("Page address", "screen-url", entry.url));
      fields.appendChild(field("Page title", "screen-title", entry.title));
      if (config.needsNotes) fields.appendChild(field("What this screen adds", "screen-note", entry.note, true));
      item.appendChild(fields);
      var order = document.createElement("div");
      order.className = "screen-order";
      order.appendChild(button("↑", "up", index, "Move screen " + (index + 1) + " up"));
      order.appendChild(button("↓", "down", index, "Move screen " + (index + 1) + " down"));
      order.appendChild(button("Remove", "remove", index, "Remove screen " + (index + 1)));
      item.appendChild(order);
      list.appendChild(item);
    });
    var wanted = config.minScreens === config.maxScreens ? config.minScreens : config.minScreens + "–" + config.maxScreens;
    document.getElementById("screen-count").textContent = screens.length + " of " + wanted;
    hidden.value = JSON.stringify(screens);
  }

  function readFields() {
    list.querySelectorAll(".screen-item").forEach(function (item, index) {
      screens[index].url = item.querySelector(".screen-url").value.trim();
      screens[index].title = item.querySelector(".screen-title").value.trim();
      var note = item.querySelector(".screen-note");
      if (note) screens[index].note = note.value.trim();
    });
    hidden.value = JSON.stringify(screens);
  }

  // --- Drafts ----------------------------------------------------------------------
  var saveTimer = null;
  function draft() {
    readFields();
    return {
      screens: screens,
      question: form.elements.question.value,
      answer: form.elements.answer.value,
      reasoning_types: Array.prototype.map.call(form.querySelectorAll("input[name=reasoning_types]:checked"), function (b) { return b.value; }),
      no_sign_in: form.elements.no_sign_in.checked,
      no_personal_data: form.elements.no_personal_data.checked,
    };
  }
  var pending = 0;
  function saveSoon() {
    clearTimeout(saveTimer);
    draftStatus.dataset.state = "saving";
    draftStatus.textContent = "Saving the draft…";
    saveTimer = setTimeout(function () { saveTimer = null; saveNow(); }, 400);
  }
  function saveNow() {
    pending += 1;
    return fetch("/api/v1/assignments/" + config.assignment + "/draft/", {
      method: "PUT",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify({ draft: draft() }),
    }).then(function (response) {
      if (response.ok) return { state: "saved", text: "Draft saved at " + new Date().toLocaleTimeString() + "." };
      return response.json().then(function (body) {
        return { state: "failed", text: "The draft was not saved: " + body.error.message };
      });
    }).catch(function () {
      return { state: "failed", text: "The draft was not saved: the server cannot be reached. Your work is still on this page." };
    }).then(function (outcome) {
      pending -= 1;
      // Report only once nothing newer is waiting to be saved.
      if (pending || saveTimer) return;
      draftStatus.dataset.state = outcome.state;
      draftStatus.textContent = outcome.text;
    });
  }

  // --- Uploads -----------------------------------------------------------------------
  // Each screen gets a fresh Idempotency-Key, sent again unchanged when the upload is
  // retried (no answer, or the server busy): the server then answers with the screen the
  // first attempt made instead of making a second one.
  var UPLOAD_ATTEMPTS = 5;

  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }

  function later(seconds) {
    return new Promise(function (resolve) { setTimeout(resolve, seconds * 1000); });
  }

  function retryable(status) {
    return status === 502 || status === 503 || status === 504;
  }

  // Resolves to { ok, json } for an answer the server meant; rejects when none came.
  function send(body, key, attempt) {
    return fetch("/api/v1/screens/", {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrf, "Idempotency-Key": key },
      body: body,
    }).then(function (response) {
      if (retryable(response.status) && attempt < UPLOAD_ATTEMPTS) {
        var wait = Number(response.headers.get("Retry-After")) || Math.pow(2, attempt);
        return later(Math.min(wait, 30)).then(function () { return send(body, key, attempt + 1); });
      }
      return response.json().then(function (json) { return { ok: response.ok, json: json }; });
    }, function (error) {
      if (attempt >= UPLOAD_ATTEMPTS) throw error;
      return later(Math.pow(2, attempt)).then(function () { return send(body, key, attempt + 1); });
    });
  }

  function upload(files) {
    showError("");
    Array.prototype.forEach.call(files, function (file) {
      if (screens.length >= config.maxScreens) {
        showError("This task takes at most " + config.maxScreens + " screen" + (config.maxScreens > 1 ? "s" : "") + ": remove one before adding another.");
        return;
      }
      var body = new FormData();
      body.append("file", file, file.name || "pasted-screen.png");
      body.append("assignment", config.assignment);
      var placeholder = { screen: null };
      screens.push(placeholder);
      send(body, newKey(), 1)
        .then(function (result) {
          var index = screens.indexOf(placeholder);
          if (!result.ok) {
            screens.splice(index, 1);
            showError((file.name ? file.name + ": " : "") + result.json.error.message);
          } else {
            screens[index] = { screen: result.json.id, thumbnail_url: result.json.thumbnail_url, url: "", title: "", note: "" };
          }
          render();
          saveSoon();
        })
        .catch(function () {
          screens.splice(screens.indexOf(placeholder), 1);
          showError("The upload did not reach the server; check your connection and try again.");
          render();
        });
    });
  }

  document.getElementById("screen-file").addEventListener("change", function (event) {
    readFields();
    upload(event.target.files);
    event.target.value = "";
  });
  var zone = document.getElementById("dropzone");
  zone.addEventListener("dragover", function (event) { event.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", function () { zone.classList.remove("over"); });
  zone.addEventListener("drop", function (event) {
    event.preventDefault();
    zone.classList.remove("over");
    readFields();
    upload(event.dataTransfer.files);
  });
  document.addEventListener("paste", function (event) {
    var files = Array.prototype.filter.call(event.clipboardData.files || [], function (f) { return f.type.indexOf("image/") === 0; });
    if (files.length) {
      event.preventDefault();
      readFields();
      upload(files);
    }
  });

  list.addEventListener("click", function (event) {
    var action = event.target.dataset.action;
    if (!action) return;
    readFields();
    var index = Number(event.target.dataset.index);
    var other = action === "up" ? index - 1 : index + 1;
    if (action === "remove") {
      screens.splice(index, 1);
    } else if (other >= 0 && other < screens.length) {
      var moved = screens[index];
      screens[index] = screens[other];
      screens[other] = moved;
    }
    render();
    saveSoon();
  });

  // --- Answer type ---------------------------------------------------------------------
  // Mirrors collection/answers.py; the server's detection is the one stored.
  function answerType(answer) {
    var value = answer.trim().replace(/^[$€£¥₹]+|[$€£¥₹]+$/g, "").replace(/%$/, "").trim();
    if (/^[+-]?\d{1,3}(,\d{3})+$|^[+-]?\d+$/.test(value)) return "Whole number";
    if (/^[+-]?(\d{1,3}(,\d{3})+|\d*)\.\d+$/.test(value)) return "Decimal number";
    return value ? "Text" : "";
  }
  var answerField = form.elements.answer;
  function showAnswerType() {
    var type = answerType(answerField.value);
    document.getElementById("answer-type").textContent = type ? "Answer type: " + type : "";
  }
  answerField.addEventListener("input", showAnswerType);

  form.addEventListener("input", function (event) {
    if (event.target.closest("#screen-list") || event.target.hasAttribute("data-draft")) saveSoon();
  });
  form.addEventListener("change", function (event) {
    if (event.target.type === "checkbox") saveSoon();
  });
  form.addEventListener("submit", readFields);

  restoreFields(start);
  render();
  showAnswerType();
  // Marks the page as ready for input (the script is deferred; the page shows before it runs).
  document.querySelector("[data-testid=capture]").dataset.ready = "1";
})();
