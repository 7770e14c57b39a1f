/**
 * The recorder: start/pause/resume/stop, and turning page loads and the rater's actions
 * into captured steps.
 *
 * A step is the screen *after* its action, with the action that produced it: a page load
 * ("navigate", "back", "forward"), or a click, submit, committed typing or scroll. Page
 * data (URL, scroll, clickables, HTML) is read right after the screenshot so that it
 * matches it; the action's target box was measured when the rater acted. A click, submit
 * or Enter that starts a page load is not captured on its own: it becomes the action of
 * the loaded page's step ("click" on the link that led there), so the trace keeps which
 * link was followed without a half-unloaded screenshot.
 *
 * Captures wait a moment for the page to settle, run one at a time through the pacer, and
 * are dropped when nothing changed since the previous step. A trace recorded for a batch
 * that asks for full-page screenshots (`trace.fullPage`, see lib/fullpage.js) captures the
 * whole page, with every box page-absolute; if that fails, the step is a viewport one. Everything durable goes
 * through the store; what is kept in memory here (queued captures, a click waiting for its
 * page) is only worth a second or two.
 */

import { blockReason } from "./blocklist.js";
import { hashString, stepKey } from "./dedup.js";
import { captureFullPage, fullPageMode, TabChanged } from "./fullpage.js";
import { emptyHistory, recordNavigation } from "./navigation.js";
import { dataUrlToBlob } from "./screens.js";

export const ACTION_TYPES = Object.freeze(["navigate", "click", "type", "submit", "scroll", "back", "forward"]);
const TARGETED = new Set(["click", "type", "submit"]);
const PAGE_LOADS = new Set(["navigate", "back", "forward"]);

/** How long a capture waits after its event, so the page can react (ms). */
export const SETTLE_MS = Object.freeze({
  navigate: 350, back: 350, forward: 350, click: 450, submit: 450, type: 250, scroll: 50,
});
const CARRY_MS = 15_000; // how long a click waits for the page it opened
const CARRY_CHECK_MS = 3_000; // then: still loading? wait on; nothing came (a download)? capture as is
const ACTION_COVERS_HISTORY_MS = 1_500; // a pushState right after a click is that click's doing
const OPENED_TAB_MS = 1_000; // a click reported this soon after its tab opened a new one opened it
const MAX_QUEUED = 20;
// The platform's field limits (collection/serializers.py): longer values would fail the upload.
const LIMITS = { url: 2000, title: 500, tag: 40, role: 60, text: 2000, href: 4000, selector: 4000 };

const isBox = (box) => Array.isArray(box) && box.length === 4;
const roundBox = (box) => box.map((n) => Math.round(Number(n) || 0));

/**
 * An action as the recorder keeps it until its step is captured; null for anything
 * malformed. A target may carry `pageBbox`, its box in a full-page screenshot.
 */
export function normalizeAction(action) {
  if (!action || !ACTION_TYPES.includes(action.type)) return null;
  if (!TARGETED.has(action.type) || !action.target) return { type: action.type, target: null };
  const target = action.target;
  const text = (value, limit) => (typeof value === "string" ? value.slice(0, limit) : "");
  const bbox = isBox(target.bbox) ? roundBox(target.bbox) : [0, 0, 0, 0];
  const normalized = {
    type: action.type,
    target: {
      tag: text(target.tag, LIMITS.tag), text: text(target.text, LIMITS.text), label: text(target.label, LIMITS.text),
      role: text(target.role, LIMITS.role), href: text(target.href, LIMITS.href), bbox,
      selector: text(target.selector, LIMITS.selector),
    },
  };
  if (isBox(target.pageBbox)) normalized.target.pageBbox = roundBox(target.pageBbox);
  return normalized;
}

/** The action as its step stores it: the target's box in the step's screenshot's coordinates. */
export function stepAction(action, { fullPage = false } = {}) {
  if (!action.target) return action;
  const { pageBbox, ...target } = action.target;
  if (fullPage && pageBbox) target.bbox = pageBbox;
  return { ...action, target };
}

function fitClickable(item) {
  return {
    ...item,
    text: String(item.text ?? "").slice(0, LIMITS.text),
    alt: String(item.alt ?? "").slice(0, LIMITS.text),
    href: String(item.href ?? "").slice(0, LIMITS.href),
    selector: String(item.selector ?? "").slice(0, LIMITS.selector),
    tag: String(item.tag ?? "").slice(0, LIMITS.tag),
  };
}

export function createRecorder({
  store,
  pacer,
  browser,
  sessionArea = null,
  now = () => Date.now(),
  uuid = () => crypto.randomUUID(),
  timers = globalThis,
  log = () => {},
}) {
  const jobs = new Set(); // queued captures: { tabId, action, cancelled, capturing }
  const carried = new Map(); // tabId -> { action, at, timer }: a click waiting for its page load
  const loadTypes = new Map(); // tabId -> promise of the committed navigation's type, for when it completes
  const lastActionAt = new Map();
  const documents = new Map(); // tabId -> the main frame's current documentId
  const openedTabs = new Map(); // tabId -> { tabId, at }: the tab it just opened (target=_blank)
  let activity = 0; // counts queued captures, so a caller can tell when things went quiet
  let histories = null;
  let running = Promise.resolve();
  let waiters = [];

  // ----- recording state -----

  async function setBadge() {
    const { status } = await store.recording();
    await browser.setBadge?.(status);
  }

  function dropQueued() {
    for (const job of jobs) if (!job.capturing) job.cancelled = true;
    for (const { timer } of carried.values()) timers.clearTimeout(timer);
    carried.clear();
    settle();
  }

  /** Starts a trace; `details` are kept on it (category, batch, their names, the platform URL). */
  async function start({ category, batch = null, ...details }) {
    const result = await store.startTrace({
      ...details,
      id: uuid(),
      category,
      batch: batch ?? null,
      startedAt: new Date(now()).toISOString(),
    });
    await setBadge();
    return result;
  }

  async function transition(name) {
    const result = await store.transition(name, new Date(now()).toISOString());
    if (name !== "resume") dropQueued();
    await setBadge();
    return result;
  }

  /** After a browser restart a recording comes back paused: the rater resumes it knowingly. */
  async function restore({ browserStarted = false } = {}) {
    const recording = await store.recording();
    if (browserStarted && recording.status === "recording") await store.transition("pause");
    await setBadge();
    return store.recording();
  }

  // ----- events -----

  async function isRecording() {
    return (await store.recording()).status === "recording";
  }

  function hasQueued(tabId) {
    for (const job of jobs) if (job.tabId === tabId && !job.cancelled && !job.capturing) return true;
    return false;
  }

  /**
   * A user action reported by the content script of `tab`, from the document `documentId`.
   * Chrome does not order these messages with the navigation events, so a click can arrive
   * after the page it opened began loading: it is then handed to that page.
   */
  async function userAction(tab, rawAction, { documentId = null } = {}) {
    const action = normalizeAction(rawAction);
    if (!action || !tab || tab.incognito || !(await isRecording())) return { queued: false };
    lastActionAt.set(tab.id, now());
    if (TARGETED.has(action.type)) {
      const opened = openedTabs.get(tab.id);
      openedTabs.delete(tab.id);
      if (opened && now() - opened.at < OPENED_TAB_MS) {
        carry(opened.tabId, action);
        return { queued: true };
      }
      const current = documents.get(tab.id);
      if (documentId && current && documentId !== current) {
        carry(tab.id, action);
        return { queued: true };
      }
    }
    // A scroll while another capture of the tab is queued is part of what that one shows.
    if (action.type === "scroll" && (hasQueued(tab.id) || jobs.size >= MAX_QUEUED)) return { queued: false };
    schedule(tab.id, action);
    return { queued: true };
  }

  /** A main-frame navigation began in `tabId`: its queued captures are of a page that is leaving. */
  function navigationStarted(tabId) {
    let leadingAction = null;
    for (const job of jobs) {
      if (job.tabId !== tabId || job.cancelled || job.capturing) continue;
      job.cancelled = true;
      if (TARGETED.has(job.action.type)) leadingAction = job.action;
    }
    if (leadingAction) carry(tabId, leadingAction);
    settle();
  }

  /** Makes `action` the action of the next page-load step of `tabId` (or of the one queued). */
  function carry(tabId, action) {
    for (const job of jobs) {
      if (job.tabId === tabId && !job.cancelled && !job.capturing && PAGE_LOADS.has(job.action.type)) {
        job.action = action;
        return;
      }
    }
    const previous = carried.get(tabId);
    if (previous) timers.clearTimeout(previous.timer);
    const entry = { action, at: now(), timer: null };
    entry.timer = timers.setTimeout(() => checkCarried(tabId, entry), CARRY_CHECK_MS);
    carried.set(tabId, entry);
  }

  async function checkCarried(tabId, entry) {
    if (carried.get(tabId) !== entry) return;
    const tab = await browser.getTab(tabId).catch(() => null);
    if (tab?.pendingUrl && now() - entry.at < CARRY_MS) {
      entry.timer = timers.setTimeout(() => checkCarried(tabId, entry), CARRY_CHECK_MS);
      return;
    }
    carried.delete(tabId);
    if (tab && (await isRecording())) schedule(tabId, entry.action);
    settle();
  }

  function takeCarried(tabId) {
    const entry = carried.get(tabId);
    if (!entry) return null;
    carried.delete(tabId);
    timers.clearTimeout(entry.timer);
    return now() - entry.at <= CARRY_MS ? entry.action : null;
  }

  async function tabHistories() {
    if (histories) return histories;
    const stored = sessionArea ? (await sessionArea.get("tabHistories")).tabHistories : null;
    histories ??= stored ?? {};
    return histories;
  }

  async function classify(tabId, { url, transitionType, transitionQualifiers = [] }) {
    const all = await tabHistories();
    const { type, history } = recordNavigation(all[tabId] ?? emptyHistory(), {
      url,
      transitionType,
      qualifiers: transitionQualifiers,
    });
    all[tabId] = history;
    await sessionArea?.set({ tabHistories: all });
    return type;
  }

  /** A link or form opened a new tab: the click that did it becomes the new page's action. */
  function navigationTargetCreated(sourceTabId, tabId) {
    for (const job of jobs) {
      if (job.tabId !== sourceTabId || job.cancelled || job.capturing || !TARGETED.has(job.action.type)) continue;
      job.cancelled = true;
      carry(tabId, job.action);
      settle();
      return;
    }
    openedTabs.set(sourceTabId, { tabId, at: now() }); // the click has not arrived yet
  }

  /** Queues a capture of what `tabId` shows now (recording just started). */
  async function captureNow(tabId) {
    if (!(await isRecording())) return { queued: false };
    schedule(tabId, { type: "navigate", target: null });
    return { queued: true };
  }

  async function navigationCommitted(tabId, details) {
    navigationStarted(tabId);
    if (details.documentId) documents.set(tabId, details.documentId);
    // Set before any await: a page restored from the back/forward cache completes at once.
    const type = classify(tabId, details);
    loadTypes.set(tabId, type);
    await type;
  }

  async function pageLoaded(tabId) {
    const type = (await loadTypes.get(tabId)) ?? "navigate";
    loadTypes.delete(tabId);
    const action = takeCarried(tabId) ?? { type, target: null };
    if (await isRecording()) schedule(tabId, action);
    settle();
  }

  /** pushState/popstate in a single-page site. */
  async function historyStateUpdated(tabId, details) {
    const type = await classify(tabId, details);
    if (!(await isRecording())) return;
    const recentAction = now() - (lastActionAt.get(tabId) ?? Number.NEGATIVE_INFINITY) < ACTION_COVERS_HISTORY_MS;
    if (type === "navigate" && (recentAction || hasQueued(tabId))) return;
    schedule(tabId, { type, target: null });
  }

  async function forgetTab(tabId) {
    const all = await tabHistories();
    delete all[tabId];
    await sessionArea?.set({ tabHistories: all });
    loadTypes.delete(tabId);
    documents.delete(tabId);
    openedTabs.delete(tabId);
    const entry = carried.get(tabId);
    if (entry) timers.clearTimeout(entry.timer);
    carried.delete(tabId);
    settle();
  }

  // ----- the capture queue -----

  function schedule(tabId, action) {
    const job = { tabId, action, cancelled: false, capturing: false };
    jobs.add(job);
    activity += 1;
    timers.setTimeout(() => {
      running = running.then(() => runJob(job));
    }, SETTLE_MS[action.type] ?? 300);
  }

  async function runJob(job) {
    try {
      if (!job.cancelled) {
        const result = await capture(job);
        log("capture", job.action.type, result);
      }
    } catch (error) {
      log("capture failed", job.action.type, error);
    } finally {
      jobs.delete(job);
      settle();
    }
  }

  function settle() {
    if (jobs.size || carried.size) return;
    const ready = waiters;
    waiters = [];
    for (const resolve of ready) resolve();
  }

  /** Resolves when no capture is queued and no click is waiting for its page. */
  function flush() {
    return new Promise((resolve) => {
      waiters.push(resolve);
      settle();
    });
  }

  /** A full-page screenshot; a viewport one if that fails for another reason than the rater leaving. */
  async function fullPageShot(tab, mode, options) {
    const stillThere = async () => {
      const current = await browser.getTab(tab.id).catch(() => null);
      if (!current?.active || current.url !== tab.url || current.windowId !== tab.windowId) throw new TabChanged();
    };
    try {
      const { blob, hash } = await captureFullPage({ mode, tab, options, pacer, browser, stillThere, log });
      return { blob, hash, fullPage: true };
    } catch (error) {
      if (error instanceof TabChanged) return null;
      log("full-page capture failed; capturing the viewport", error);
    }
    const dataUrl = await pacer.run(() => stillThere().then(() => browser.captureVisibleTab(tab.windowId, options))).catch((error) => {
      if (error instanceof TabChanged) return null;
      throw error;
    });
    return dataUrl ? { blob: dataUrlToBlob(dataUrl), hash: hashString(dataUrl), fullPage: false } : null;
  }

  function whyNot(tab, rules) {
    if (!tab) return "the tab is gone";
    if (tab.incognito) return "incognito";
    if (!tab.active) return "the tab is not visible";
    if (tab.pendingUrl && tab.pendingUrl !== tab.url) return "the tab is loading another page";
    return blockReason(tab.url, rules);
  }

  async function capture(job) {
    const recording = await store.recording();
    if (recording.status !== "recording") return { added: false, reason: "not recording" };
    const [settings, catalog, session] = await Promise.all([store.settings(), store.catalog(), store.session()]);
    const rules = {
      blocklist: catalog.blocklist,
      platformUrl: session?.platformUrl ?? null,
      skipPlatformPages: settings.skipPlatformPages,
    };
    const options = settings.imageFormat === "jpeg" ? { format: "jpeg", quality: settings.jpegQuality } : { format: "png" };
    const trace = await store.trace(recording.traceId).catch(() => null);
    const mode = fullPageMode(trace?.fullPage);

    let tab = null;
    let refusal = null;
    // The checks run right before the capture (inside the paced call for a viewport): the
    // rater may have switched to another tab (or a blocked site) while this one waited.
    const ready = async () => {
      if (job.cancelled) return false;
      tab = await browser.getTab(job.tabId).catch(() => null);
      refusal = whyNot(tab, rules);
      if (refusal) return false;
      job.capturing = true;
      return true;
    };
    let shot = null;
    if (mode) {
      if (await ready()) {
        shot = await fullPageShot(tab, mode, options);
        refusal = shot ? null : "the tab changed during the capture";
      }
    } else {
      const dataUrl = await pacer.run(async () => ((await ready()) ? browser.captureVisibleTab(tab.windowId, options) : null));
      if (dataUrl) shot = { blob: dataUrlToBlob(dataUrl), hash: hashString(dataUrl), fullPage: false };
    }
    if (!shot) {
      // The page this action was on is leaving: the action goes with the page that comes.
      if (tab?.pendingUrl && TARGETED.has(job.action.type) && !job.cancelled) carry(job.tabId, job.action);
      return { added: false, reason: job.cancelled ? "cancelled" : refusal };
    }
    const capturedAt = now();

    const after = await browser.getTab(job.tabId).catch(() => null);
    if (!after?.active || after.url !== tab.url) return { added: false, reason: "the tab changed during the capture" };
    const page = await browser.describePage(job.tabId, { includeHtml: settings.captureHtml, fullPage: shot.fullPage }).catch(() => null);
    if (!page) return { added: false, reason: "the page could not be read" };
    const pageRefusal = blockReason(page.url, rules) ?? (page.url.length > LIMITS.url ? "a URL too long for the platform" : null);
    if (pageRefusal) return { added: false, reason: pageRefusal };

    const { blob, hash: screenshotHash, fullPage } = shot;
    const step = {
      id: uuid(),
      traceId: recording.traceId,
      capturedAt: new Date(capturedAt).toISOString(),
      url: page.url,
      title: (page.title ?? "").slice(0, LIMITS.title),
      viewport: page.viewport,
      devicePixelRatio: page.devicePixelRatio,
      scroll: page.scroll,
      fullPage,
      action: stepAction(job.action, { fullPage }),
      clickables: (page.clickables ?? []).map(fitClickable),
      mime: blob.type,
      bytes: blob.size,
      screenshotHash,
      stored: false,
    };
    if (typeof page.html === "string") step.html = page.html;
    // A full-page screenshot shows the same page whatever the scroll: only a new image is a new step.
    const key = stepKey({ url: page.url, scroll: fullPage ? null : page.scroll, screenshotHash });
    return store.appendStep(step, blob, { key });
  }

  return {
    start,
    pause: () => transition("pause"),
    resume: () => transition("resume"),
    stop: () => transition("stop"),
    restore,
    userAction,
    navigationStarted,
    navigationTargetCreated,
    navigationCommitted,
    captureNow,
    pageLoaded,
    historyStateUpdated,
    forgetTab,
    flush,
    get queued() {
      return jobs.size;
    },
    /** Grows with every capture queued: unchanged over a while means nothing new happened. */
    get activity() {
      return activity;
    },
  };
}
