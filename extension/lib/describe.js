/**
 * Describing what the rater acted on and what the page offers to click (WebVLN's
 * "buttons"), in screenshot pixels: CSS pixels × devicePixelRatio, relative to the
 * viewport, exactly like the captureVisibleTab image; or, for a full-page screenshot,
 * relative to the page's top left corner (page-absolute: the scroll position added).
 *
 * This file is a classic script, not an ES module, because content scripts cannot be
 * modules: it runs before content.js in the page's isolated world and leaves its functions
 * on globalThis.TrailmarkDescribe. Tests import it for that side effect. It only reads the
 * few DOM members listed in tests/fake-dom.js (and, for full-page boxes, the computed
 * `position`, which tests pass in as `positionOf`), so a tiny fake document is enough.
 */
(function (root) {
  "use strict";

  const TEXT_LIMIT = 200;
  const CLICKABLE_INPUT_TYPES = new Set(["submit", "button", "image", "reset"]);
  const NON_TEXT_INPUT_TYPES = new Set([
    "submit", "button", "image", "reset", "checkbox", "radio", "file", "range", "color", "hidden",
  ]);
  const ACTIONABLE_TAGS = new Set(["a", "button", "input", "select", "textarea", "label", "summary", "option"]);
  const ACTIONABLE_ROLES = new Set([
    "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "combobox", "textbox", "searchbox", "slider", "treeitem",
  ]);
  const INPUT_ROLES = {
    button: "button", submit: "button", reset: "button", image: "button", checkbox: "checkbox",
    radio: "radio", range: "slider", number: "spinbutton", search: "searchbox", hidden: "",
  };
  const TAG_ROLES = {
    button: "button", textarea: "textbox", img: "img", form: "form", nav: "navigation",
    main: "main", option: "option", li: "listitem", ul: "list", ol: "list", table: "table",
    h1: "heading", h2: "heading", h3: "heading", h4: "heading", h5: "heading", h6: "heading",
  };

  function tagOf(el) {
    return String(el?.tagName ?? "").toLowerCase();
  }

  function attr(el, name) {
    const value = typeof el?.getAttribute === "function" ? el.getAttribute(name) : null;
    return value == null ? "" : String(value);
  }

  function hasAttr(el, name) {
    return typeof el?.hasAttribute === "function" ? el.hasAttribute(name) : attr(el, name) !== "";
  }

  function clean(text, limit = TEXT_LIMIT) {
    return String(text ?? "").replace(/\s+/g, " ").trim().slice(0, limit);
  }

  function childElements(el) {
    return Array.from(el?.children ?? []);
  }

  function inputType(el) {
    return attr(el, "type").toLowerCase();
  }

  function isEditable(el) {
    if (el?.isContentEditable === true) return true;
    if (!hasAttr(el, "contenteditable")) return false;
    return attr(el, "contenteditable").toLowerCase() !== "false";
  }

  /** A text field: clicks on it only focus it; what matters is the committed typing. */
  function isTextEntry(el) {
    const tag = tagOf(el);
    if (tag === "textarea" || tag === "select") return true;
    if (tag === "input") return !NON_TEXT_INPUT_TYPES.has(inputType(el));
    return isEditable(el);
  }

  /** The page's clickable elements as the issue defines them. */
  function isClickable(el) {
    const tag = tagOf(el);
    if (tag === "a") return hasAttr(el, "href");
    if (tag === "button") return true;
    if (tag === "input") return CLICKABLE_INPUT_TYPES.has(inputType(el));
    if (attr(el, "role").toLowerCase() === "button") return true;
    return hasAttr(el, "onclick");
  }

  function isActionable(el) {
    if (!el || el.nodeType !== 1) return false;
    if (isClickable(el)) return true;
    if (ACTIONABLE_TAGS.has(tagOf(el))) return true;
    return ACTIONABLE_ROLES.has(attr(el, "role").toLowerCase()) || isEditable(el);
  }

  /** The element the rater meant: a click on the icon inside a button is a click on the button. */
  function actionableElement(el) {
    let node = el;
    while (node && node.nodeType !== 1) node = node.parentElement ?? node.parentNode;
    for (let current = node, depth = 0; current && depth < 15; current = current.parentElement, depth += 1) {
      if (isActionable(current)) return current;
    }
    return node ?? el;
  }

  function roleOf(el) {
    const explicit = attr(el, "role").trim().split(/\s+/)[0];
    if (explicit) return explicit.toLowerCase();
    const tag = tagOf(el);
    if (tag === "a" || tag === "area") return hasAttr(el, "href") ? "link" : "";
    if (tag === "input") {
      const type = inputType(el);
      return type in INPUT_ROLES ? INPUT_ROLES[type] : "textbox";
    }
    if (tag === "select") return el.multiple || Number(attr(el, "size")) > 1 ? "listbox" : "combobox";
    if (tag === "img" && hasAttr(el, "alt") && attr(el, "alt") === "") return "presentation";
    return TAG_ROLES[tag] ?? "";
  }

  function textById(el, ids) {
    const doc = el.ownerDocument;
    if (!doc || typeof doc.getElementById !== "function") return "";
    return ids
      .split(/\s+/)
      .map((id) => doc.getElementById(id))
      .filter(Boolean)
      .map((node) => visibleText(node))
      .join(" ");
  }

  function visibleText(el) {
    return clean(el?.innerText ?? el?.textContent ?? "");
  }

  /** The accessible label, from the attributes that carry one (not the element's own text). */
  function labelOf(el) {
    const aria = clean(attr(el, "aria-label"));
    if (aria) return aria;
    const labelledBy = attr(el, "aria-labelledby").trim();
    if (labelledBy) {
      const text = clean(textById(el, labelledBy));
      if (text) return text;
    }
    const alt = clean(attr(el, "alt"));
    if (alt) return alt;
    const labels = Array.from(el.labels ?? []);
    if (labels.length) {
      const text = clean(labels.map((label) => visibleText(label)).join(" "));
      if (text) return text;
    }
    return clean(attr(el, "title")) || clean(attr(el, "placeholder"));
  }

  /**
   * The element's visible text. What the rater typed is never included: text fields give
   * nothing (the screenshot shows them, and the rater reviews screenshots).
   */
  function textOf(el) {
    const tag = tagOf(el);
    if (tag === "input") {
      const type = inputType(el);
      if (type === "image") return clean(attr(el, "alt"));
      if (CLICKABLE_INPUT_TYPES.has(type)) return clean(attr(el, "value") || el.value || (type === "reset" ? "Reset" : type === "submit" ? "Submit" : ""));
      return "";
    }
    if (tag === "textarea" || isEditable(el)) return "";
    if (tag === "select") {
      const option = el.selectedOptions?.[0];
      return option ? visibleText(option) : "";
    }
    if (tag === "img") return clean(attr(el, "alt"));
    return visibleText(el);
  }

  /** The alt text a clickable shows: its own, or that of the first image inside it. */
  function altOf(el) {
    if (hasAttr(el, "alt")) return clean(attr(el, "alt"));
    const stack = childElements(el).reverse();
    for (let seen = 0; stack.length && seen < 50; seen += 1) {
      const node = stack.pop();
      if (tagOf(node) === "img" && hasAttr(node, "alt")) return clean(attr(node, "alt"));
      stack.push(...childElements(node).reverse());
    }
    return "";
  }

  function hrefOf(el) {
    const tag = tagOf(el);
    if (tag !== "a" && tag !== "area") return "";
    const raw = attr(el, "href");
    if (!raw) return "";
    if (typeof el.href === "string" && el.href) return el.href;
    try {
      return new URL(raw, el.baseURI || el.ownerDocument?.baseURI).href;
    } catch {
      return raw;
    }
  }

  function rectOf(el) {
    const rect = el.getBoundingClientRect();
    const x = rect.x ?? rect.left ?? 0;
    const y = rect.y ?? rect.top ?? 0;
    return { x, y, width: rect.width ?? 0, height: rect.height ?? 0 };
  }

  /** [x, y, width, height] in screenshot pixels. */
  function screenBox(rect, dpr = 1) {
    const scale = Number(dpr) > 0 ? Number(dpr) : 1;
    return [rect.x, rect.y, rect.width, rect.height].map((value) => Math.round(value * scale));
  }

  function computedPosition(el) {
    const view = el.ownerDocument?.defaultView;
    return typeof view?.getComputedStyle === "function" ? view.getComputedStyle(el).position : "";
  }

  /**
   * Whether `el` is in a position:fixed element. A full-page screenshot shows such an
   * element once, where it was at the top of the page (scroll 0), so its page-absolute
   * box is its viewport box. `seen` caches the answer per element during one walk.
   */
  function isPinned(el, positionOf = computedPosition, seen = new Map()) {
    const path = [];
    let pinned = false;
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      if (seen.has(node)) {
        pinned = seen.get(node);
        break;
      }
      path.push(node);
      if (positionOf(node) === "fixed") {
        pinned = true;
        break;
      }
    }
    for (const node of path) seen.set(node, pinned);
    return pinned;
  }

  /**
   * [x, y, width, height] in screenshot pixels from the page's top left corner, for a
   * full-page screenshot: (rect.left + scrollX) × dpr, (rect.top + scrollY) × dpr, ….
   */
  function pageBox(rect, dpr = 1, scroll = { x: 0, y: 0 }) {
    return screenBox({ ...rect, x: rect.x + (Number(scroll.x) || 0), y: rect.y + (Number(scroll.y) || 0) }, dpr);
  }

  function boxOf(el, rect, { dpr, scroll, positionOf, seen }) {
    if (!scroll) return screenBox(rect, dpr);
    return pageBox(rect, dpr, isPinned(el, positionOf, seen) ? { x: 0, y: 0 } : scroll);
  }

  /**
   * Ids that look written by a person, not generated per page load (":r1:", "ember1234").
   * They are also plain CSS identifiers, so they need no escaping.
   */
  function isStableId(id) {
    return id.length <= 40 && /^[A-Za-z][\w-]*$/.test(id) && !/\d{3,}/.test(id);
  }

  function isUnique(el, selector) {
    const doc = el.ownerDocument;
    if (!doc || typeof doc.querySelectorAll !== "function") return true;
    try {
      return doc.querySelectorAll(selector).length === 1;
    } catch {
      return false;
    }
  }

  /**
   * A selector that finds the element again: from the nearest ancestor with a stable id
   * (or test id), one `tag:nth-of-type(n)` step per level, the position only where needed.
   */
  function cssSelector(el) {
    const parts = [];
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const tag = tagOf(node);
      const id = attr(node, "id");
      if (id && isStableId(id) && isUnique(node, `#${id}`)) {
        parts.unshift(`#${id}`);
        break;
      }
      const testId = attr(node, "data-testid");
      if (testId) {
        const selector = `[data-testid="${testId.replace(/["\\]/g, "\\$&")}"]`;
        if (isUnique(node, selector)) {
          parts.unshift(selector);
          break;
        }
      }
      const parent = node.parentElement;
      if (!parent || tag === "body" || tag === "html") {
        parts.unshift(tag);
        break;
      }
      const sameTag = childElements(parent).filter((child) => tagOf(child) === tag);
      parts.unshift(sameTag.length > 1 ? `${tag}:nth-of-type(${sameTag.indexOf(node) + 1})` : tag);
    }
    return parts.join(" > ");
  }

  /**
   * The action's target as the trace step records it. Given the page's `scroll`, it also
   * has `pageBbox`, the box in a full-page screenshot; the recorder keeps the one that
   * fits the step's screenshot.
   */
  function describeTarget(el, { dpr = 1, scroll = null, positionOf = computedPosition } = {}) {
    const target = actionableElement(el);
    const rect = rectOf(target);
    const described = {
      tag: tagOf(target),
      text: textOf(target),
      label: labelOf(target),
      role: roleOf(target),
      href: hrefOf(target),
      bbox: screenBox(rect, dpr),
      selector: cssSelector(target),
    };
    if (scroll) described.pageBbox = boxOf(target, rect, { dpr, scroll, positionOf });
    return described;
  }

  function isVisible(el, rect, viewport) {
    if (!(rect.width > 0 && rect.height > 0)) return false;
    if (viewport) {
      const outside = rect.x + rect.width <= 0 || rect.y + rect.height <= 0 ||
        rect.x >= viewport.width || rect.y >= viewport.height;
      if (outside) return false;
    }
    if (typeof el.checkVisibility === "function") {
      return el.checkVisibility({ opacityProperty: true, visibilityProperty: true });
    }
    return true;
  }

  /**
   * The visible clickable elements in document order (WebVLN's "buttons"): those in the
   * `viewport`, or, given the page's `scroll` (a full-page screenshot), all of the page's
   * with page-absolute boxes. Hidden and zero-size ones are skipped either way.
   */
  function collectClickables(doc, { dpr = 1, viewport = null, scroll = null, positionOf = computedPosition, limit = 400, maxNodes = 40000 } = {}) {
    const start = doc.body ?? doc.documentElement ?? doc;
    const found = [];
    const stack = [start];
    const box = { dpr, scroll, positionOf, seen: new Map() };
    for (let visited = 0; stack.length && found.length < limit && visited < maxNodes; visited += 1) {
      const el = stack.pop();
      if (isClickable(el)) {
        const rect = rectOf(el);
        if (isVisible(el, rect, scroll ? null : viewport)) {
          found.push({
            tag: tagOf(el),
            text: textOf(el) || labelOf(el),
            alt: altOf(el),
            href: hrefOf(el),
            bbox: boxOf(el, rect, box),
            selector: cssSelector(el),
          });
        }
      }
      const children = childElements(el);
      for (let index = children.length - 1; index >= 0; index -= 1) stack.push(children[index]);
    }
    return found;
  }

  /**
   * Everything a step needs from the page, read at capture time; for a `fullPage`
   * screenshot, the whole page's clickables with page-absolute boxes. The HTML is left out
   * when over `htmlLimitBytes`: the platform refuses a `step` part much over 2.5 MB.
   */
  function describePage(win, { includeHtml = false, htmlLimitBytes = 2_000_000, fullPage = false } = {}) {
    const doc = win.document;
    const dpr = win.devicePixelRatio || 1;
    const viewport = { width: win.innerWidth, height: win.innerHeight };
    const scroll = { x: win.scrollX ?? 0, y: win.scrollY ?? 0 };
    const page = {
      url: String(win.location.href),
      title: doc.title ?? "",
      viewport,
      devicePixelRatio: dpr,
      scroll: { x: Math.round(scroll.x), y: Math.round(scroll.y) },
      clickables: collectClickables(doc, fullPage ? { dpr, scroll } : { dpr, viewport }),
    };
    if (fullPage) page.fullPage = true;
    if (includeHtml) {
      const html = doc.documentElement?.outerHTML ?? "";
      const fits = html.length * 3 <= htmlLimitBytes ||
        (html.length <= htmlLimitBytes && new TextEncoder().encode(html).length <= htmlLimitBytes);
      if (fits) page.html = html;
    }
    return page;
  }

  root.TrailmarkDescribe = Object.freeze({
    actionableElement,
    collectClickables,
    cssSelector,
    describePage,
    describeTarget,
    isClickable,
    isPinned,
    isTextEntry,
    labelOf,
    pageBox,
    roleOf,
    screenBox,
    textOf,
  });
})(globalThis);
