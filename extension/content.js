/**
 * Content script (top frame of http/https pages). While a recording runs it reports the
 * rater's actions to the service worker — clicks, form submits, committed typing (change
 * or Enter) and scrolls that move the page by a good part of a screen — each with its
 * target described by lib/describe.js, loaded just before this file. On request it
 * describes the page for a step (URL, viewport, scroll, clickables, optionally HTML).
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
    const target = element ? describe.describeTarget(element, { dpr: window.devicePixelRatio || 1 }) : null;
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
    if (!event.isTrusted || !recording) return;
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

  function onMessage(message, _sender, sendResponse) {
    if (message?.type !== "describe-page") return false;
    const page = describe.describePage(window, { includeHtml: Boolean(message.includeHtml) });
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
