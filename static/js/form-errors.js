// One way to show a form's errors. The server renders a summary (.error-summary) whose
// links name each field (data-field="pairs.1.question"); this script moves focus to it,
// links each entry to its field and puts the message beside the field when the page has
// none there yet (fields drawn by scripts, like the capture list's page addresses).
//
// Before a submit it also checks counts the page declares, so that a worker hears at once
// "pick exactly 3" instead of after a round trip; the server still decides:
//   <div data-check-count data-min="3" data-max="3" data-noun="images" data-field="images"
//        data-where="Question 2" data-message="Pick exactly 3 images; you picked {n}.">…</div>
(function () {
  "use strict";

  function cssEscape(value) {
    return window.CSS && CSS.escape ? CSS.escape(value) : value.replace(/["\\]/g, "\\$&");
  }

  // The element a dotted error key is about: an explicit data-error-for, a field with that
  // name, the "pair-1-question" spelling of "pairs.1.question", or the n-th item of a list
  // drawn by a script ([data-error-list="screens"] > li) and the sub-field inside it.
  function target(form, key) {
    var scope = form || document;
    var exact = scope.querySelector('[data-error-for="' + cssEscape(key) + '"]') || scope.querySelector('[name="' + cssEscape(key) + '"]');
    if (exact) return exact;
    var parts = key.split(".");
    if (parts.length >= 2 && /^\d+$/.test(parts[1])) {
      var singular = parts[0].replace(/s$/, "");
      var named = parts.length === 3 && scope.querySelector('[name="' + cssEscape(singular + "-" + parts[1] + "-" + parts[2]) + '"]');
      if (named) return named;
      var list = scope.querySelector('[data-error-list="' + cssEscape(parts[0]) + '"]');
      var item = list && list.children[Number(parts[1])];
      if (item) {
        return (parts[2] && item.querySelector('[data-field="' + cssEscape(parts[2]) + '"], .' + singular + "-" + parts[2])) || item;
      }
      var group = scope.querySelector('[data-error-for="' + cssEscape(parts[0] + "." + parts[1]) + '"]');
      if (group) return group;
    }
    return scope.querySelector('[data-error-for="' + cssEscape(parts[0]) + '"]') || scope.querySelector('[name="' + cssEscape(parts[0]) + '"]');
  }

  function idFor(key) {
    return "error-" + key.replace(/[^A-Za-z0-9_-]/g, "");
  }

  // The visible anchor of a field: a checkbox or radio's group rather than its first box.
  function anchorOf(field) {
    if (field.matches && field.matches("input[type=checkbox], input[type=radio]")) {
      return field.closest("fieldset, [data-error-for], [data-check-count]") || field.closest("label") || field;
    }
    return field.closest("label") || field;
  }

  function markInline(field, key, message) {
    var anchor = anchorOf(field);
    var id = idFor(key);
    var existing = document.getElementById(id) || (anchor.parentNode && anchor.parentNode.querySelector('.field-error[data-for="' + cssEscape(key) + '"]'));
    if (!existing) {
      existing = document.createElement("p");
      existing.className = "field-error";
      existing.setAttribute("data-for", key);
      existing.setAttribute("data-testid", "field-error");
      existing.textContent = message;
      if (anchor.matches("fieldset, [data-error-for], [data-check-count]")) placeInside(anchor, existing);
      else anchor.insertAdjacentElement("afterend", existing);
    }
    existing.id = existing.id || id;
    var focusable = focusTarget(field);
    if (focusable.matches("input, textarea, select")) {
      focusable.setAttribute("aria-invalid", "true");
      var described = (focusable.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
      if (described.indexOf(existing.id) < 0) described.push(existing.id);
      focusable.setAttribute("aria-describedby", described.join(" "));
    } else {
      anchor.classList.add("invalid-group");
    }
  }

  // A group's message goes under its heading (legend, h2, h3), else first inside it.
  function placeInside(group, message) {
    var heading = group.querySelector(":scope > legend, :scope > h2, :scope > h3");
    if (heading) heading.insertAdjacentElement("afterend", message);
    else group.insertBefore(message, group.firstChild);
  }

  function focusTarget(field) {
    if (field.matches("input, textarea, select, button")) return field;
    return field.querySelector("input:not([type=hidden]), textarea, select") || field;
  }

  function wire(summary) {
    var form = summary.closest("form") || document.getElementById("task-form") || document.querySelector("main form");
    summary.querySelectorAll("a[data-field]").forEach(function (link) {
      var key = link.getAttribute("data-field");
      var field = target(form, key);
      if (!field) return;
      // The summary's words, which name the screen or question the message is about.
      var message = link.textContent.trim();
      markInline(field, key, message);
      link.addEventListener("click", function (event) {
        event.preventDefault();
        var goal = focusTarget(field);
        goal.scrollIntoView({ block: "center" });
        if (goal.tabIndex < 0 && !goal.matches("input, textarea, select, button, a[href]")) goal.tabIndex = -1;
        goal.focus({ preventScroll: true });
      });
    });
  }

  function showSummary(summary) {
    summary.setAttribute("tabindex", "-1");
    summary.scrollIntoView({ block: "start" });
    summary.focus({ preventScroll: true });
  }

  function clearClientErrors(form) {
    form.querySelectorAll("[data-client-error]").forEach(function (node) { node.remove(); });
    form.querySelectorAll(".invalid-group").forEach(function (node) { node.classList.remove("invalid-group"); });
  }

  function countProblems(form) {
    var problems = [];
    form.querySelectorAll("[data-check-count]").forEach(function (group) {
      var picked = group.querySelectorAll("input[type=checkbox]:checked, input[type=radio]:checked").length;
      var min = Number(group.dataset.min || 0);
      var max = group.dataset.max === undefined ? Infinity : Number(group.dataset.max);
      var noun = group.dataset.noun || "items";
      var text = null;
      if (min === max && picked !== min) text = "Pick exactly " + min + " " + noun + "; you picked " + picked + ".";
      else if (picked < min) text = "Pick at least " + min + " " + noun + "; you picked " + picked + ".";
      else if (picked > max) text = "Pick at most " + max + " " + noun + "; you picked " + picked + ".";
      // The page may say it in the server's own words, with {n} for the count.
      if (text && group.dataset.message) text = group.dataset.message.replace("{n}", String(picked));
      if (text) problems.push({ key: group.dataset.field || group.id, where: group.dataset.where || "", message: text, group: group });
    });
    return problems;
  }

  function renderClientSummary(form, problems) {
    var old = form.querySelector(".error-summary");
    var summary = document.createElement("div");
    summary.className = "error-summary";
    summary.setAttribute("role", "alert");
    summary.setAttribute("data-testid", "form-errors");
    summary.setAttribute("data-client-error", "");
    var heading = document.createElement("h2");
    heading.textContent = problems.length === 1 ? "Please fix this before you submit:" : "Please fix these " + problems.length + " things before you submit:";
    summary.appendChild(heading);
    var list = document.createElement("ul");
    problems.forEach(function (problem) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = "#" + idFor(problem.key);
      link.setAttribute("data-field", problem.key);
      link.setAttribute("data-message", problem.message);
      link.textContent = (problem.where ? problem.where + ": " : "") + problem.message;
      item.appendChild(link);
      list.appendChild(item);
      var note = document.createElement("p");
      note.className = "field-error";
      note.id = idFor(problem.key);
      note.setAttribute("data-for", problem.key);
      note.setAttribute("data-testid", "field-error");
      note.setAttribute("data-client-error", "");
      note.textContent = link.textContent;
      placeInside(problem.group, note);
      problem.group.classList.add("invalid-group");
    });
    summary.appendChild(list);
    if (old) old.replaceWith(summary);
    else form.insertBefore(summary, form.firstElementChild);
    wire(summary);
    showSummary(summary);
  }

  // Capture phase: runs before the page's other submit handlers, which then see
  // defaultPrevented (drafts.js keeps the draft when a submit is stopped here).
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.querySelector("[data-check-count]")) return;
    var submitter = event.submitter;
    if (submitter && submitter.hasAttribute("formnovalidate")) return;
    clearClientErrors(form);
    var problems = countProblems(form);
    if (!problems.length) return;
    event.preventDefault();
    renderClientSummary(form, problems);
  }, true);

  function start() {
    var summary = document.querySelector(".error-summary");
    if (!summary) return;
    wire(summary);
    showSummary(summary);
  }

  // After the page's own scripts (deferred too) have drawn their fields.
  if (document.readyState === "complete") start();
  else window.addEventListener("load", start);
})();
