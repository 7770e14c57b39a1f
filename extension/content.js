/**
 * Content script (top frame of http/https pages). While a recording runs it reports the
 * rater's actions to the service worker — clicks, form submits, committed typing (change
 * or Enter) and scrolls that move the page by a good part of a screen — each with its
 * target described by lib/describe.js, loaded just before this file. On request it
 * describes the page for a step (URL, viewport, scroll, clickables, optionally HTML), and
 * scrolls the page part by part for a stitched full-page screenshot (lib/fullpage.js).
 *
 * Nothing is sent while the recording is idle or paused. Only trusted (real user) events
 * count, except `change`. A classic script: content scripts cannot be ES modules.
 */
(() => {
  "use strict";

  const describe = globalThis.TrailmarkDescribe;
  if (!describe) return;

  // A copy injected earlier (an older version of the extension, or a second injection)
  // stops listening first, so every event is reported once.
  globalThis.__trailmarkStop?.();

  const SCROLL_QUIET_MS = 400;
  const SCROLL_FRACTION = 0.25;
  const REPEAT_MS = 300;

  let recording = false;
  let lastSent = { type: "", element: null, at: 0 };
  let scrollTimer = null;
  const scrolledFrom = new WeakMap(); // scroller -> its position at the last step
  const undo = [];

  function listen(target, type, handler, options) {
    target.addEventListener(type, handler, options);
    undo.push(() => target.removeEventListener(type, handler, options));
  }

  function stop() {
    for (const remove of undo.splice(0)) remove();
    clearTimeout(scrollTimer);
    try {
      chrome.storage.onChanged.removeListener(onStorageChanged);
      chrome.runtime.onMessage.removeListener(onMessage);
    } catch {
      // The extension was reloaded: these APIs are gone, and so are the listeners.
    }
  }
  globalThis.__trailmarkStop = stop;

  function extensionAlive() {
    try {
      return Boolean(chrome.runtime?.id);
    } catch {
      return false;
    }
  }

  function report(type, element) {
    if (!recording) return;
    if (!extensionAlive()) {
      stop();
      return;
    }
    const now = Date.now();
    // Enter in a field can also fire its change event: one commit, reported once.
    if (type === "type" && lastSent.type === "type" && lastSent.element === element && now - lastSent.at < REPEAT_MS) return;
    lastSent = { type, element, at: now };
    const scroll = { x: window.scrollX, y: window.scrollY };
    const target = element ? describe.describeTarget(element, { dpr: window.devicePixelRatio || 1, scroll }) : null;
    chrome.runtime.sendMessage({ type: "page-action", action: { type, target } }).catch(() => {});
  }

  // The event's target as the document sees it (a shadow root's host, not its insides), so
  // the selector finds it again from the document, like the clickables'.
  function elementOf(event) {
    const node = event.target;
    return node?.nodeType === 1 ? node : node?.parentElement ?? null;
  }

  function isSubmitButton(el) {
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute("type") || "").toLowerCase();
    if (!el.form) return false;
    return (tag === "button" && (type === "" || type === "submit")) || (tag === "input" && (type === "submit" || type === "image"));
  }

  function onClick(event) {
    if (!event.isTrusted) return;
    const element = elementOf(event);
    if (!element) return;
    const target = describe.actionableElement(element);
    // Focusing a field is not a step (its committed typing is); a submit button's click
    // is reported as the form's submit event that follows.
    if (describe.isTextEntry(target) || isSubmitButton(target)) return;
    report("click", target);
  }

  function onSubmit(event) {
    if (!event.isTrusted) return;
    report("submit", event.submitter ?? event.target);
  }

  // Unlike the others, a change event also counts when untrusted: pages (and Playwright's
  // select_option) fire it after setting a value, which is what the rater chose.
  function onChange(event) {
    const element = elementOf(event);
    if (element && describe.isTextEntry(element)) report("type", element);
  }

  function onKeyDown(event) {
    if (!event.isTrusted || event.key !== "Enter" || event.isComposing) return;
    const element = elementOf(event);
    if (!element || !describe.isTextEntry(element)) return;
    if (element.tagName.toLowerCase() === "textarea") return; // a new line, not a commit
    if (element.form) return; // the form's submit event reports it
    report("type", element);
  }

  function scrollPosition(scroller) {
    if (scroller === document) return { x: window.scrollX, y: window.scrollY, w: window.innerWidth, h: window.innerHeight };
    return { x: scroller.scrollLeft, y: scroller.scrollTop, w: scroller.clientWidth, h: scroller.clientHeight };
  }

  function onScroll(event) {
    // The extension's own scrolling for a full-page screenshot is not the rater's.
    if (!event.isTrusted || !recording || fullPage) return;
    const scroller = event.target === document || event.target === document.documentElement ? document : event.target;
    if (!scrolledFrom.has(scroller)) scrolledFrom.set(scroller, scrollPosition(scroller));
    clearTimeout(scrollTimer);
    scrollTimer = setTimeout(() => {
      const before = scrolledFrom.get(scroller);
      const now = scrollPosition(scroller);
      const moved = Math.abs(now.y - before.y) >= now.h * SCROLL_FRACTION || Math.abs(now.x - before.x) >= now.w * SCROLL_FRACTION;
      if (!moved) return;
      scrolledFrom.set(scroller, now);
      report("scroll", null);
    }, SCROLL_QUIET_MS);
  }

  // ----- full-page screenshots: the service worker captures, this scrolls -----

  const FULL_PAGE_WATCHDOG_MS = 90_000; // a worker stopped mid-capture must not leave the page scrolled
  const MAX_SCANNED = 20_000;
  let fullPage = null; // while one runs: { x, y, sticky: Map(el -> page top), hidden: [...], watchdog }

  const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
  const scrollInstantly = (x, y) => window.scrollTo({ left: x, top: y, behavior: "instant" });

  function pageMetrics() {
    const root = document.documentElement;
    return {
      pageHeight: Math.max(root?.scrollHeight ?? 0, document.body?.scrollHeight ?? 0, window.innerHeight),
      viewportHeight: window.innerHeight,
      viewportWidth: window.innerWidth,
      dpr: window.devicePixelRatio || 1,
    };
  }

  function beginFullPage() {
    if (!fullPage) {
      fullPage = { x: window.scrollX, y: window.scrollY, sticky: null, fixed: [], hidden: [], watchdog: null };
      fullPage.watchdog = setTimeout(() => endFullPage(), FULL_PAGE_WATCHDOG_MS);
    }
    clearTimeout(scrollTimer);
    return pageMetrics();
  }

  /** Fixed elements, and sticky ones with where they sit in the page, read at the top. */
  function notePinned() {
    fullPage.sticky = new Map();
    const all = document.body?.getElementsByTagName("*") ?? [];
    for (let index = 0; index < all.length && index < MAX_SCANNED; index += 1) {
      const el = all[index];
      const { position } = getComputedStyle(el);
      if (position === "fixed") fullPage.fixed.push(el);
      else if (position === "sticky") fullPage.sticky.set(el, el.getBoundingClientRect().top + window.scrollY);
    }
  }

  function hide(el) {
    if (fullPage.hidden.some(([hidden]) => hidden === el)) return;
    fullPage.hidden.push([el, el.style.getPropertyValue("visibility"), el.style.getPropertyPriority("visibility")]);
    el.style.setProperty("visibility", "hidden", "important");
  }

  /** After the first part: what would show again in this part is hidden. */
  function hideRepeating() {
    for (const el of fullPage.fixed) hide(el);
    for (const [el, top] of fullPage.sticky) {
      if (Math.abs(el.getBoundingClientRect().top + window.scrollY - top) > 1) hide(el);
    }
  }

  async function scrollForPart(y, hideRepeated) {
    if (!fullPage) beginFullPage();
    scrollInstantly(0, y);
    await nextFrame();
    if (!fullPage.sticky) notePinned();
    if (hideRepeated) hideRepeating();
    await nextFrame();
    await nextFrame();
    return { scrollY: window.scrollY };
  }

  async function endFullPage() {
    if (!fullPage) return {};
    const { x, y, hidden, watchdog } = fullPage;
    clearTimeout(watchdog);
    for (const [el, value, priority] of hidden) {
      if (value) el.style.setProperty("visibility", value, priority);
      else el.style.removeProperty("visibility");
    }
    scrollInstantly(x, y);
    await nextFrame();
    await nextFrame(); // the scroll events of that restore are past
    fullPage = null;
    scrolledFrom.set(document, scrollPosition(document));
    return {};
  }

  const fullPageHandlers = {
    "full-page-begin": () => beginFullPage(),
    "full-page-scroll": (message) => scrollForPart(Number(message.y) || 0, Boolean(message.hideRepeating)),
    "full-page-end": () => endFullPage(),
  };

  function onMessage(message, _sender, sendResponse) {
    const fullPageHandler = fullPageHandlers[message?.type];
    if (fullPageHandler) {
      Promise.resolve(fullPageHandler(message)).then(sendResponse, (error) => sendResponse({ error: String(error?.message ?? error) }));
      return true;
    }
    if (message?.type !== "describe-page") return false;
    const page = describe.describePage(window, { includeHtml: Boolean(message.includeHtml), fullPage: Boolean(message.fullPage) });
    // The next scroll is measured from what this step shows.
    scrolledFrom.set(document, scrollPosition(document));
    sendResponse(page);
    return false;
  }

  function onStorageChanged(changes, area) {
    if (area === "local" && changes.recording) recording = changes.recording.newValue?.status === "recording";
  }

  listen(window, "click", onClick, { capture: true, passive: true });
  listen(window, "submit", onSubmit, { capture: true, passive: true });
  listen(window, "change", onChange, { capture: true, passive: true });
  listen(window, "keydown", onKeyDown, { capture: true, passive: true });
  listen(document, "scroll", onScroll, { capture: true, passive: true });
  scrolledFrom.set(document, scrollPosition(document));
  chrome.runtime.onMessage.addListener(onMessage);
  chrome.storage.onChanged.addListener(onStorageChanged);
  chrome.storage.local.get("recording").then(({ recording: state }) => {
    recording = state?.status === "recording";
  });
})();
