// Keeps what a worker typed in this browser (localStorage) so that a reload, a crash or a
// closed tab loses nothing. It attaches to every form marked <form data-draft-key="…">, or
// named by a marker <span data-draft-form="form-id" data-draft-key="…"> (base.html marks an
// open assignment's form, keyed by the user and the assignment). A submit that leaves the
// form's page, or a return of the task, forgets the draft; a refused submit keeps it.
(function () {
  "use strict";
  var PREFIX = "draft:";
  var PENDING = "trailmark:draft-pending";
  var SKIP = ["hidden", "file", "password", "submit", "button", "reset", "image"];

  function storage() {
    try {
      return window.localStorage;
    } catch (error) {
      return null; // storage switched off: the form still works, just without drafts
    }
  }

  function fields(form) {
    return Array.from(form.elements).filter(function (element) {
      return element.name && SKIP.indexOf(element.type) < 0 && !element.hasAttribute("data-no-draft") && element.name !== "csrfmiddlewaretoken";
    });
  }

  function read(form) {
    var values = {};
    fields(form).forEach(function (element) {
      if (element.type === "checkbox") {
        values[element.name] = values[element.name] || [];
        if (element.checked) values[element.name].push(element.value);
      } else if (element.type === "radio") {
        if (!(element.name in values)) values[element.name] = null;
        if (element.checked) values[element.name] = element.value;
      } else if (element.tagName === "SELECT" && element.multiple) {
        values[element.name] = Array.from(element.selectedOptions).map(function (option) { return option.value; });
      } else {
        values[element.name] = element.value;
      }
    });
    return values;
  }

  function write(form, values) {
    fields(form).forEach(function (element) {
      if (!(element.name in values)) return;
      var value = values[element.name];
      var before = element.type === "checkbox" || element.type === "radio" ? element.checked : element.value;
      if (element.type === "checkbox") element.checked = Array.isArray(value) && value.indexOf(element.value) >= 0;
      else if (element.type === "radio") element.checked = value === element.value;
      else if (element.tagName === "SELECT" && element.multiple) {
        Array.from(element.options).forEach(function (option) { option.selected = value.indexOf(option.value) >= 0; });
      } else element.value = value == null ? "" : value;
      var after = element.type === "checkbox" || element.type === "radio" ? element.checked : element.value;
      if (before !== after) {
        element.dispatchEvent(new Event("input", { bubbles: true }));
        element.dispatchEvent(new Event("change", { bubbles: true }));
      }
    });
  }

  function hasContent(values) {
    return Object.keys(values).some(function (name) {
      var value = values[name];
      return Array.isArray(value) ? value.length > 0 : !!value;
    });
  }

  function same(a, b) {
    return JSON.stringify(a) === JSON.stringify(b);
  }

  function note(form, text, onDiscard) {
    var line = form.querySelector("[data-testid=draft-note]");
    if (!line) {
      line = document.createElement("p");
      line.className = "draft-note";
      line.setAttribute("role", "status");
      line.setAttribute("data-testid", "draft-note");
      var actions = form.querySelector(".actions");
      if (actions) actions.insertAdjacentElement("beforebegin", line);
      else form.appendChild(line);
    }
    line.textContent = text;
    if (onDiscard) {
      var discard = document.createElement("button");
      discard.type = "button";
      discard.className = "link";
      discard.textContent = "Start again from empty";
      discard.addEventListener("click", onDiscard);
      line.appendChild(document.createTextNode(" "));
      line.appendChild(discard);
    }
  }

  function attach(form, key) {
    var store = storage();
    if (!store) return;
    var name = PREFIX + key;
    var pending = null;
    try {
      pending = window.sessionStorage.getItem(PENDING);
      window.sessionStorage.removeItem(PENDING);
    } catch (error) {
      pending = null;
    }
    var initial = read(form);
    var saved = null;
    try {
      saved = JSON.parse(store.getItem(name) || "null");
    } catch (error) {
      saved = null;
    }
    // Just submitted and refused: the page shows what was sent, which is the draft.
    if (saved && pending !== key && saved.values && !same(saved.values, initial)) {
      write(form, saved.values);
      var when = new Date(saved.saved_at);
      note(form, "Your unsent work from " + when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) + " was put back.", function () {
        store.removeItem(name);
        write(form, initial);
        note(form, "The draft was thrown away.");
      });
    }

    var timer = null;
    var forgotten = false;
    function save() {
      timer = null;
      if (forgotten) return;
      var values = read(form);
      try {
        if (hasContent(values) && !same(values, initial)) store.setItem(name, JSON.stringify({ saved_at: Date.now(), values: values }));
        else store.removeItem(name);
        form.dataset.draftSaved = String(Date.now());
      } catch (error) {
        note(form, "This browser could not keep a draft; your work stays on this page until you submit.");
      }
    }
    function saveSoon() {
      if (timer) clearTimeout(timer);
      timer = setTimeout(save, 250);
    }
    form.addEventListener("input", saveSoon);
    form.addEventListener("change", saveSoon);
    form.setAttribute("data-draft-ready", "");
    window.addEventListener("pagehide", function () { if (timer) save(); });

    // Bubble phase: a submit stopped by a check (form-errors.js) arrives defaultPrevented.
    document.addEventListener("submit", function (event) {
      if (event.defaultPrevented) return;
      var sent = event.target;
      if (sent === form) {
        if (timer) save();
        try {
          window.sessionStorage.setItem(PENDING, key);
        } catch (error) {
          /* the draft is then simply kept until the next visit clears it */
        }
      } else if (/\/return\/?$/.test(sent.getAttribute("action") || "")) {
        forgotten = true;
        if (timer) clearTimeout(timer);
        timer = null;
        store.removeItem(name);
      }
    });
  }

  // A submit that left the form's page (accepted, or the form is gone) forgets its draft.
  function settlePending(attachedKeys) {
    var store = storage();
    var pending;
    try {
      pending = window.sessionStorage.getItem(PENDING);
    } catch (error) {
      return;
    }
    if (!pending || !store) return;
    if (attachedKeys.indexOf(pending) < 0) {
      store.removeItem(PREFIX + pending);
      window.sessionStorage.removeItem(PENDING);
    }
  }

  function start() {
    var found = [];
    document.querySelectorAll("form[data-draft-key]").forEach(function (form) {
      found.push({ form: form, key: form.getAttribute("data-draft-key") });
    });
    document.querySelectorAll("[data-draft-form][data-draft-key]").forEach(function (marker) {
      var form = document.getElementById(marker.getAttribute("data-draft-form"));
      if (form && form.tagName === "FORM") found.push({ form: form, key: marker.getAttribute("data-draft-key") });
    });
    settlePending(found.map(function (entry) { return entry.key; }));
    found.forEach(function (entry) { attach(entry.form, entry.key); });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
