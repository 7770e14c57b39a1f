// The full-size evidence viewer. Progressive enhancement: every <a data-viewer href="full.png">
// around a thumbnail still opens the picture on its own without scripts; with them, the link
// opens a viewer with zoom (buttons, + and -, Ctrl+wheel or a pinch, a click on the picture)
// and moves through its group with the arrow keys. Links with the same data-viewer value are
// one group. Pictures inside a [data-viewer-images] container (added by scripts, like the
// capture preview) open too: their full-size address is data-full, or the thumbnail's
// address without its /thumb/ ending.
(function () {
  "use strict";
  var LEVELS = [1, 1.5, 2, 3, 4];
  var dialog, stage, picture, title, count, caption, prevButton, nextButton, zoomOutButton, zoomInButton, original;
  var items = [];
  var index = 0;
  var level = 0;
  var opener = null;
  var pointers = new Map();
  var pinchStart = null;

  function element(tag, attributes, text) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) { node.setAttribute(name, attributes[name]); });
    if (text) node.textContent = text;
    return node;
  }

  function build() {
    dialog = element("dialog", { class: "viewer", "aria-labelledby": "viewer-title", "data-testid": "viewer" });
    var bar = element("div", { class: "viewer-bar" });
    title = element("h2", { class: "viewer-title", id: "viewer-title" });
    count = element("span", { class: "viewer-count", "data-testid": "viewer-count", "aria-live": "polite" });
    prevButton = element("button", { type: "button", "aria-label": "Previous picture", "data-testid": "viewer-previous" }, "←");
    nextButton = element("button", { type: "button", "aria-label": "Next picture", "data-testid": "viewer-next" }, "→");
    zoomOutButton = element("button", { type: "button", "aria-label": "Zoom out", "data-testid": "viewer-zoom-out" }, "−");
    zoomInButton = element("button", { type: "button", "aria-label": "Zoom in", "data-testid": "viewer-zoom-in" }, "+");
    var fitButton = element("button", { type: "button", "aria-label": "Fit to the window", "data-testid": "viewer-fit" }, "Fit");
    original = element("a", { target: "_blank", rel: "noopener", "data-testid": "viewer-original" }, "Open");
    original.setAttribute("aria-label", "Open the picture on its own in a new tab");
    var closeButton = element("button", { type: "button", "aria-label": "Close the viewer", "data-testid": "viewer-close" }, "✕");
    [title, count, prevButton, nextButton, zoomOutButton, zoomInButton, fitButton, original, closeButton].forEach(function (node) { bar.appendChild(node); });
    stage = element("div", { class: "viewer-stage", "data-testid": "viewer-stage" });
    picture = element("img", { alt: "", "data-testid": "viewer-image" });
    stage.appendChild(picture);
    caption = element("p", { class: "viewer-caption", "data-testid": "viewer-caption" });
    dialog.appendChild(bar);
    dialog.appendChild(stage);
    dialog.appendChild(caption);
    document.body.appendChild(dialog);

    prevButton.addEventListener("click", function () { show(index - 1); });
    nextButton.addEventListener("click", function () { show(index + 1); });
    zoomInButton.addEventListener("click", function () { zoom(level + 1); });
    zoomOutButton.addEventListener("click", function () { zoom(level - 1); });
    fitButton.addEventListener("click", function () { zoom(0); });
    closeButton.addEventListener("click", close);
    picture.addEventListener("load", function () { zoom(level); });
    picture.addEventListener("click", function (event) {
      // A click zooms in a step around the point clicked; at the largest it goes back to fit.
      var rect = picture.getBoundingClientRect();
      var fx = (event.clientX - rect.left) / rect.width;
      var fy = (event.clientY - rect.top) / rect.height;
      zoom(level + 1 < LEVELS.length ? level + 1 : 0, fx, fy);
    });
    stage.addEventListener("wheel", function (event) {
      if (!event.ctrlKey && !event.metaKey) return; // plain wheel scrolls the zoomed picture
      event.preventDefault();
      zoom(level + (event.deltaY < 0 ? 1 : -1));
    }, { passive: false });
    stage.addEventListener("pointerdown", function (event) {
      pointers.set(event.pointerId, event);
      if (pointers.size === 2) pinchStart = { distance: spread(), level: level };
    });
    stage.addEventListener("pointermove", function (event) {
      if (!pointers.has(event.pointerId)) return;
      pointers.set(event.pointerId, event);
      if (pointers.size === 2 && pinchStart) {
        var ratio = spread() / pinchStart.distance;
        var steps = ratio > 1.25 ? 1 : ratio < 0.8 ? -1 : 0;
        if (steps && pinchStart.level + steps !== level) zoom(pinchStart.level + steps);
      }
    });
    ["pointerup", "pointercancel", "pointerleave"].forEach(function (name) {
      stage.addEventListener(name, function (event) {
        pointers.delete(event.pointerId);
        if (pointers.size < 2) pinchStart = null;
      });
    });
    dialog.addEventListener("keydown", onKey);
    dialog.addEventListener("cancel", function (event) { event.preventDefault(); close(); });
  }

  function spread() {
    var points = Array.from(pointers.values());
    return Math.hypot(points[0].clientX - points[1].clientX, points[0].clientY - points[1].clientY) || 1;
  }

  function onKey(event) {
    // The page's own shortcuts (Y and N on the validation page) wait while the viewer is open.
    event.stopPropagation();
    if (event.key === "ArrowRight") { event.preventDefault(); show(index + 1); }
    else if (event.key === "ArrowLeft") { event.preventDefault(); show(index - 1); }
    else if (event.key === "+" || event.key === "=") { event.preventDefault(); zoom(level + 1); }
    else if (event.key === "-" || event.key === "_") { event.preventDefault(); zoom(level - 1); }
    else if (event.key === "0") { event.preventDefault(); zoom(0); }
    else if (event.key === "Escape") { event.preventDefault(); close(); }
    else if (event.key === "Tab") trapFocus(event);
  }

  function trapFocus(event) {
    var focusable = Array.from(dialog.querySelectorAll("button, a[href]")).filter(function (node) { return !node.disabled; });
    var first = focusable[0];
    var last = focusable[focusable.length - 1];
    if (event.shiftKey && (document.activeElement === first || !dialog.contains(document.activeElement))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  }

  function fitWidth() {
    var natural = picture.naturalWidth || stage.clientWidth;
    var byHeight = picture.naturalHeight ? (stage.clientHeight / picture.naturalHeight) * natural : natural;
    return Math.max(1, Math.min(natural, stage.clientWidth, byHeight));
  }

  function zoom(next, fx, fy) {
    level = Math.max(0, Math.min(LEVELS.length - 1, next));
    picture.style.width = Math.round(fitWidth() * LEVELS[level]) + "px";
    stage.classList.toggle("zoomed", level > 0);
    dialog.dataset.zoom = String(LEVELS[level]);
    zoomInButton.disabled = level === LEVELS.length - 1;
    zoomOutButton.disabled = level === 0;
    if (fx !== undefined) {
      stage.scrollLeft = fx * picture.offsetWidth - stage.clientWidth / 2;
      stage.scrollTop = fy * picture.offsetHeight - stage.clientHeight / 2;
    }
  }

  function show(next) {
    if (!items.length) return;
    index = (next + items.length) % items.length;
    var item = items[index];
    level = 0;
    picture.removeAttribute("style");
    picture.src = item.src;
    picture.alt = item.alt;
    original.href = item.src;
    title.textContent = item.title || item.alt || "Picture";
    count.textContent = items.length > 1 ? (index + 1) + " of " + items.length : "";
    caption.textContent = item.caption;
    caption.hidden = !item.caption;
    prevButton.disabled = nextButton.disabled = items.length < 2;
    dialog.dataset.index = String(index);
    zoom(0);
  }

  function describe(link, thumbnail, src) {
    var figure = link.closest("figure, .step-card, .image-card, .evidence-piece, .screen-item");
    var figcaption = figure && figure.querySelector("figcaption, [data-viewer-caption]");
    return {
      src: src,
      alt: (thumbnail && thumbnail.alt) || link.getAttribute("aria-label") || "",
      title: link.dataset.title || (thumbnail && thumbnail.alt) || "",
      caption: link.dataset.caption || (figcaption ? figcaption.textContent.replace(/\s+/g, " ").trim() : ""),
    };
  }

  function groupOf(link) {
    var name = link.getAttribute("data-viewer");
    return Array.from(document.querySelectorAll("a[data-viewer]")).filter(function (other) {
      return other.getAttribute("data-viewer") === name;
    });
  }

  function fullAddress(img) {
    return img.dataset.full || img.src.replace(/\/thumb\/?(\?.*)?$/, "/");
  }

  function open(list, start, from) {
    if (!dialog) build();
    items = list;
    opener = from || document.activeElement;
    if (!dialog.open) dialog.showModal();
    show(start);
    dialog.querySelector("[data-testid=viewer-close]").focus();
  }

  function close() {
    if (!dialog || !dialog.open) return;
    dialog.close();
    picture.removeAttribute("src");
    if (opener && document.contains(opener)) opener.focus();
  }

  document.addEventListener("click", function (event) {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    var link = event.target.closest("a[data-viewer]");
    if (link) {
      event.preventDefault();
      var group = groupOf(link);
      open(group.map(function (each) { return describe(each, each.querySelector("img"), each.href); }), group.indexOf(link), link);
      return;
    }
    var img = event.target.closest("[data-viewer-images] img");
    if (img && !img.closest("a, label, button")) {
      var container = img.closest("[data-viewer-images]");
      var images = Array.from(container.querySelectorAll("img"));
      open(images.map(function (each) { return describe(each, each, fullAddress(each)); }), images.indexOf(img), img);
    }
  });

  // Pictures put in by scripts can be reached from the keyboard too.
  document.addEventListener("keydown", function (event) {
    var img = event.target.closest && event.target.closest("[data-viewer-images] img");
    if (img && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      img.click();
    }
  });
  function makeFocusable() {
    document.querySelectorAll("[data-viewer-images] img:not([tabindex])").forEach(function (img) {
      img.tabIndex = 0;
      img.setAttribute("role", "button");
      img.setAttribute("aria-label", "View " + (img.alt || "the picture") + " full size");
    });
  }
  document.querySelectorAll("[data-viewer-images]").forEach(function (container) {
    new MutationObserver(makeFocusable).observe(container, { childList: true, subtree: true });
  });
  makeFocusable();
})();
