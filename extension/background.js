/**
 * The service worker: wires Chrome's events to the recorder, and answers the messages of
 * the popup, review and options pages (and of tests). Chrome stops this worker after ~30 s
 * idle, so every listener is registered at the top level and all state is in the store.
 *
 * Message API: chrome.runtime.sendMessage({type, ...}) from an extension page, answered
 * with {ok: true, ...result} or {ok: false, error: {code, message}}. See README.md.
 */

import { createApi, normalizePlatformUrl } from "./lib/api.js";
import { TrailmarkError } from "./lib/errors.js";
import { composeParts, fullPageMode } from "./lib/fullpage.js";
import { createPacer } from "./lib/pacing.js";
import { createRecorder } from "./lib/recorder.js";
import { openScreens } from "./lib/screens.js";
import { createStore } from "./lib/store.js";
import { uploadStoredTrace } from "./lib/upload.js";

const CONTENT_SCRIPTS = ["lib/describe.js", "content.js"];
const BADGES = {
  recording: { text: "REC", color: "#d63031", title: "Trailmark: recording" },
  paused: { text: "II", color: "#636e72", title: "Trailmark: paused" },
  idle: { text: "", color: "#636e72", title: "Trailmark: not recording" },
};

const screens = openScreens();
const store = createStore({ area: chrome.storage.local, screens });
const recorder = createRecorder({
  store,
  pacer: createPacer(),
  sessionArea: chrome.storage.session,
  browser: {
    getTab: (tabId) => chrome.tabs.get(tabId),
    captureVisibleTab: (windowId, options) => chrome.tabs.captureVisibleTab(windowId, options),
    describePage,
    pageCommand,
    composeParts: (image) => composeParts(image),
    // Optional: granted only where the rater accepted it (the popup asks for batches that use it).
    debuggerGranted: () => chrome.permissions.contains({ permissions: ["debugger"] }),
    debuggee: {
      attach: (target, version) => chrome.debugger.attach(target, version),
      sendCommand: (target, method, params) => chrome.debugger.sendCommand(target, method, params),
      detach: (target) => chrome.debugger.detach(target),
    },
    setBadge,
  },
  log: (...args) => console.debug("[trailmark]", ...args),
});
const uploads = new Map(); // traceId -> the running upload

async function setBadge(status) {
  const badge = BADGES[status] ?? BADGES.idle;
  await chrome.action.setBadgeText({ text: badge.text });
  await chrome.action.setBadgeBackgroundColor({ color: badge.color });
  await chrome.action.setTitle({ title: badge.title });
}

/** Asks the top frame's content script; `error` in its answer is thrown. */
async function pageCommand(tabId, message) {
  let answer;
  try {
    answer = await chrome.tabs.sendMessage(tabId, message, { frameId: 0 });
  } catch {
    // A tab opened before the extension was installed or reloaded has no content script yet.
    await chrome.scripting.executeScript({ target: { tabId }, files: CONTENT_SCRIPTS });
    answer = await chrome.tabs.sendMessage(tabId, message, { frameId: 0 });
  }
  if (answer?.error) throw new Error(answer.error);
  return answer;
}

async function describePage(tabId, { includeHtml, fullPage = false }) {
  const page = await pageCommand(tabId, { type: "describe-page", includeHtml, fullPage });
  if (!page?.url) throw new Error("The page did not describe itself.");
  return page;
}

async function injectIntoOpenTabs() {
  const tabs = await chrome.tabs.query({ url: ["http://*/*", "https://*/*"] });
  await Promise.allSettled(
    tabs.map((tab) => chrome.scripting.executeScript({ target: { tabId: tab.id }, files: CONTENT_SCRIPTS })),
  );
}

/** An upload cut off by the worker stopping is no longer running: the rater starts it again. */
async function markInterruptedUploads() {
  for (const trace of await store.traces()) {
    if (trace.state === "uploading" && !uploads.has(trace.id)) {
      await store.updateTrace(trace.id, {
        state: "stopped",
        upload: { ...trace.upload, retrying: null, error: { code: "interrupted", message: "The upload was interrupted; upload again to resume it." } },
      });
    }
  }
}

// ----- state for the pages -----

async function currentApi() {
  const session = await store.session();
  if (!session) throw new TrailmarkError("signed_out", "Sign in with the platform URL and your API token first.");
  return createApi({ baseUrl: session.platformUrl, token: session.token });
}

async function currentState() {
  const [session, catalog, recording, settings, traces] = await Promise.all([
    store.session(),
    store.catalog(),
    store.recording(),
    store.settings(),
    store.traces(),
  ]);
  const trace = recording.traceId ? traces.find((item) => item.id === recording.traceId) : null;
  return {
    signedIn: Boolean(session),
    platformUrl: session?.platformUrl ?? null,
    account: session?.account ?? null,
    categories: catalog.categories,
    batches: catalog.batches,
    catalogError: catalog.error ?? null,
    recording: {
      status: recording.status,
      traceId: recording.traceId,
      category: trace?.category ?? null,
      categoryName: trace?.categoryName ?? null,
      batch: trace?.batch ?? null,
      batchName: trace?.batchName ?? null,
      fullPage: trace?.fullPage ?? "",
      startedAt: trace?.startedAt ?? null,
      stepCount: trace?.stepIds.length ?? 0,
    },
    latestTraceId: traces[0]?.id ?? null,
    latestTrace: traces[0] ? traceSummary(traces[0]) : null,
    settings,
  };
}

/** What the popup shows of a trace once its recording stopped. */
function traceSummary(trace) {
  const { id, state, batch, batchName, categoryName, serverId, upload } = trace;
  return { id, state, batch, batchName, categoryName, serverId, upload, stepCount: trace.stepIds.length };
}

/** Categories, trace batches and the block list, each kept as it was when its call fails. */
async function refreshCatalog() {
  const api = await currentApi();
  const [categories, batches, blocklist] = await Promise.allSettled([api.categories(), api.traceBatches(), api.blocklist()]);
  const changes = { error: null, fetchedAt: new Date().toISOString() };
  if (categories.status === "fulfilled") changes.categories = categories.value.map(({ slug, name, description }) => ({ slug, name, description }));
  if (batches.status === "fulfilled") {
    changes.batches = batches.value.map(({ id, name, description, tasks_available, capture }) => ({
      id, name, description, tasks_available, fullPage: fullPageMode(capture?.full_page),
    }));
  }
  if (blocklist.status === "fulfilled") {
    changes.blocklist = blocklist.value;
    changes.blocklistFetchedAt = changes.fetchedAt;
  }
  const failed = [categories, batches, blocklist].find((result) => result.status === "rejected");
  if (failed) changes.error = failed.reason?.message ?? String(failed.reason);
  await store.saveCatalog(changes);
  return currentState();
}

// ----- actions -----

async function signIn({ platformUrl, token }) {
  if ((await store.recording()).status !== "idle") {
    throw new TrailmarkError("recording", "Stop recording before signing in again.");
  }
  const baseUrl = normalizePlatformUrl(platformUrl);
  const key = String(token ?? "").trim();
  if (!key) {
    throw new TrailmarkError("missing_token", "Paste an API token: create one on the platform's “Profile & API tokens” page.");
  }
  let account;
  try {
    account = await createApi({ baseUrl, token: key }).me();
  } catch (error) {
    if (error.status === 401 || error.status === 403) {
      throw new TrailmarkError(
        "bad_token",
        `The platform refused this token (${error.message}) Create a new one on the “Profile & API tokens” page.`,
      );
    }
    throw error;
  }
  const { id, username, role } = account ?? {};
  await store.saveSession({ platformUrl: baseUrl, token: key, account: { id, username, role }, signedInAt: new Date().toISOString() });
  await store.clearCatalog();
  return refreshCatalog();
}

async function signOut() {
  if ((await store.recording()).status !== "idle") {
    throw new TrailmarkError("recording", "Stop recording before signing out.");
  }
  await store.saveSession(null);
  await store.clearCatalog();
  return currentState();
}

/** The block list must be fresh, or at least known, before anything is captured. */
async function ensureBlocklist(api) {
  try {
    const blocklist = await api.blocklist();
    await store.saveCatalog({ blocklist, blocklistFetchedAt: new Date().toISOString() });
  } catch (error) {
    if (!(await store.catalog()).blocklistFetchedAt) {
      throw new TrailmarkError(
        "no_blocklist",
        `Recording cannot start before the platform's block list is loaded: ${error.message}`,
      );
    }
  }
}

async function captureActiveTabs() {
  const tabs = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  for (const tab of tabs) if (/^https?:/.test(tab.url ?? "")) await recorder.captureNow(tab.id);
}

async function start({ category, batch = null }) {
  const api = await currentApi();
  if (!category) throw new TrailmarkError("missing_category", "Choose a category to record for.");
  await ensureBlocklist(api);
  const catalog = await store.catalog();
  const known = catalog.categories.find((item) => item.slug === category);
  if (catalog.categories.length && !known) {
    throw new TrailmarkError("unknown_category", `There is no category “${category}” on the platform.`);
  }
  let chosenBatch = null;
  if (batch !== null && batch !== undefined && batch !== "") {
    chosenBatch = catalog.batches.find((item) => String(item.id) === String(batch));
    if (!chosenBatch) throw new TrailmarkError("unknown_batch", `Batch ${batch} is not an open trace batch you can record for.`);
  }
  await recorder.start({
    category,
    categoryName: known?.name ?? category,
    batch: chosenBatch ? Number(chosenBatch.id) : null,
    batchName: chosenBatch?.name ?? "",
    fullPage: fullPageMode(chosenBatch?.fullPage), // how this trace's steps are captured
    platformUrl: api.baseUrl,
  });
  await captureActiveTabs();
  return currentState();
}

/** Resuming captures nothing by itself: the rater may still be on the page they paused for. */
async function resume() {
  await ensureBlocklist(await currentApi()).catch(() => {}); // a known list is enough to go on
  await recorder.resume();
  return currentState();
}

function upload({ traceId }) {
  if (!uploads.has(traceId)) {
    const run = (async () => {
      const [trace, session] = await Promise.all([store.trace(traceId), store.session()]);
      if (!session) throw new TrailmarkError("signed_out", "Sign in to upload.");
      if (trace.platformUrl && trace.platformUrl !== session.platformUrl) {
        throw new TrailmarkError("other_platform", `This trace was recorded for ${trace.platformUrl}: sign in there to upload it.`);
      }
      return uploadStoredTrace({
        store,
        api: await currentApi(),
        traceId,
        loadScreenshot: (stepId) => screens.get(stepId),
        userAgent: navigator.userAgent,
      });
    })().finally(() => uploads.delete(traceId));
    uploads.set(traceId, run);
  }
  return uploads.get(traceId).then((trace) => ({ trace }));
}

/**
 * Waits until every queued capture is done and nothing new was queued for `quietMs`: an
 * action's message can still be on its way from the page when this is asked.
 */
async function flush({ quietMs = 700, timeoutMs = 30_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await recorder.flush();
    const seen = recorder.activity;
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    if ((recorder.activity === seen && recorder.queued === 0) || Date.now() > deadline) return currentState();
  }
}

async function traceWithSteps({ traceId }) {
  const [trace, steps] = await Promise.all([store.trace(traceId), store.steps(traceId)]);
  // The HTML can be megabytes: pages get whether there is some, not the text.
  return { trace, steps: steps.map(({ html, ...step }) => ({ ...step, hasHtml: typeof html === "string" })) };
}

function cleanSettings(settings = {}) {
  const clean = {};
  if ("captureHtml" in settings) clean.captureHtml = Boolean(settings.captureHtml);
  if ("skipPlatformPages" in settings) clean.skipPlatformPages = Boolean(settings.skipPlatformPages);
  if ("imageFormat" in settings) clean.imageFormat = settings.imageFormat === "jpeg" ? "jpeg" : "png";
  if ("jpegQuality" in settings) clean.jpegQuality = Math.min(100, Math.max(30, Math.round(Number(settings.jpegQuality) || 90)));
  return clean;
}

const handlers = {
  "get-state": () => currentState(),
  "sign-in": signIn,
  "sign-out": signOut,
  refresh: refreshCatalog,
  start,
  pause: async () => (await recorder.pause(), currentState()),
  resume,
  stop: async () => (await recorder.stop(), currentState()),
  flush,
  "list-traces": async () => ({ traces: await store.traces() }),
  "get-trace": traceWithSteps,
  "delete-step": async ({ traceId, stepId }) => (await store.deleteStep(traceId, stepId), traceWithSteps({ traceId })),
  "delete-trace": async ({ traceId }) => (await store.deleteTrace(traceId), { traces: await store.traces() }),
  upload,
  "save-settings": async ({ settings }) => ({ settings: await store.saveSettings(cleanSettings(settings)) }),
};

// Content scripts (web pages) may only report actions.
const pageHandlers = {
  "page-action": (message, sender) =>
    sender.frameId === 0 ? recorder.userAction(sender.tab, message.action, { documentId: sender.documentId }) : {},
};

async function dispatch(message, sender) {
  const fromExtension = !sender.url || sender.url.startsWith(chrome.runtime.getURL(""));
  const handler = (fromExtension ? handlers : pageHandlers)[message?.type];
  if (!handler) return { ok: false, error: { code: "unknown_message", message: `Unknown message ${message?.type}.` } };
  try {
    return { ok: true, ...(await handler(message, sender)) };
  } catch (error) {
    if (!(error instanceof TrailmarkError)) console.error("[trailmark]", message?.type, error);
    return { ok: false, error: { code: error?.code ?? "error", message: String(error?.message ?? error) } };
  }
}

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (sender.id !== chrome.runtime.id) return false;
  dispatch(message, sender).then(sendResponse);
  return true;
});

// ----- browser events (top level, so they wake the worker) -----

function isMainFrame(details) {
  return details.frameId === 0 && details.documentLifecycle !== "prerender";
}

chrome.webNavigation.onBeforeNavigate.addListener((details) => {
  if (isMainFrame(details)) recorder.navigationStarted(details.tabId);
});
chrome.webNavigation.onCreatedNavigationTarget.addListener((details) => {
  recorder.navigationTargetCreated(details.sourceTabId, details.tabId);
});
chrome.webNavigation.onCommitted.addListener((details) => {
  if (isMainFrame(details)) recorder.navigationCommitted(details.tabId, details).catch(console.error);
});
chrome.webNavigation.onCompleted.addListener((details) => {
  if (isMainFrame(details)) recorder.pageLoaded(details.tabId).catch(console.error);
});
chrome.webNavigation.onHistoryStateUpdated.addListener((details) => {
  if (isMainFrame(details)) recorder.historyStateUpdated(details.tabId, details).catch(console.error);
});
chrome.tabs.onRemoved.addListener((tabId) => {
  recorder.forgetTab(tabId).catch(console.error);
});

chrome.runtime.onInstalled.addListener(() => {
  injectIntoOpenTabs().catch(console.error);
});
/**
 * Every time the worker starts. chrome.storage.session outlives the worker but not the
 * browser (or an extension reload), so an empty one means the browser just started: a
 * recording left running then comes back paused. (runtime.onStartup does not fire for an
 * extension loaded with --load-extension, so it cannot be relied on.)
 */
async function wakeUp() {
  const { browserSession } = await chrome.storage.session.get("browserSession");
  if (!browserSession) await chrome.storage.session.set({ browserSession: new Date().toISOString() });
  await recorder.restore({ browserStarted: !browserSession });
  await markInterruptedUploads();
}

wakeUp().catch(console.error);
