import assert from "node:assert/strict";
import { test } from "node:test";

import { createPacer } from "../lib/pacing.js";
import { createRecorder } from "../lib/recorder.js";
import { createStore } from "../lib/store.js";
import { fakeBrowser, fakeClock, fakeScreens, fakeStorageArea } from "./fakes.js";

const LINK = { tag: "a", text: "Next page", label: "", role: "link", href: "https://shop.example/kettles?page=2", bbox: [720, 1400, 160, 48], selector: "nav > a:nth-of-type(2)" };

/**
 * One "service worker": a store over the given storage, a recorder, a pacer. Building a
 * second one over the same storage is what Chrome does when it restarts the worker.
 */
function worker({ area, screens, session, browser, clock }) {
  const store = createStore({ area, screens });
  let nextId = 0;
  const recorder = createRecorder({
    store,
    pacer: createPacer({ now: clock.now, sleep: clock.sleep }),
    browser,
    sessionArea: session,
    now: clock.now,
    uuid: () => `id-${clock.now()}-${nextId++}`,
    timers: clock,
  });
  return { store, recorder };
}

async function setUp() {
  const env = { area: fakeStorageArea(), screens: fakeScreens(), session: fakeStorageArea(), browser: fakeBrowser(), clock: fakeClock() };
  const tab = env.browser.addTab({ id: 7, url: "https://shop.example/kettles", title: "Kettles", screen: "kettles, page 1" });
  await env.area.set({ session: { platformUrl: "https://trailmark.test", token: "t", account: { username: "rater" } } });
  return { ...env, tab, ...worker(env) };
}

/** Lets the settle timers fire and every queued capture finish. */
async function captured(env, ms = 2000) {
  await env.clock.tick(ms);
  await env.recorder.flush();
}

async function steps(env) {
  const { traceId } = await env.store.recording();
  return env.store.steps(traceId);
}

test("a page load while recording becomes a step with the page's data and the screenshot", async () => {
  const env = await setUp();
  await env.recorder.start({ category: "shopping", categoryName: "Shopping" });

  await env.recorder.pageLoaded(env.tab.id);
  await captured(env);

  const [step] = await steps(env);
  assert.equal(step.url, "https://shop.example/kettles");
  assert.equal(step.title, "Kettles");
  assert.deepEqual(step.action, { type: "navigate", target: null });
  assert.deepEqual(step.viewport, { width: 1280, height: 800 });
  assert.equal(step.devicePixelRatio, 2);
  assert.equal(step.clickables.length, 1);
  assert.equal(step.html, undefined, "HTML is off by default");
  assert.equal(await env.screens.blobs.get(step.id).text(), "kettles, page 1");
  assert.deepEqual(env.browser.captures[0].options, { format: "png" });
  assert.deepEqual(env.browser.badges, ["recording"]);
});

test("an action that changed nothing adds no step; one that changed the screen does", async () => {
  const env = await setUp();
  await env.recorder.start({ category: "shopping" });
  await env.recorder.pageLoaded(env.tab.id);
  await captured(env);

  await env.recorder.userAction(env.tab, { type: "click", target: LINK });
  await captured(env);
  assert.equal((await steps(env)).length, 1);

  env.browser.tabs.get(env.tab.id).screen = "kettles, menu open";
  await env.recorder.userAction(env.tab, { type: "click", target: LINK });
  await captured(env);

  const all = await steps(env);
  assert.equal(all.length, 2);
  assert.deepEqual(all[1].action, { type: "click", target: LINK });
});

test("a click that opens a page is the action of that page's step, not a step of its own", async () => {
  const env = await setUp();
  await env.recorder.start({ category: "shopping" });
  await env.recorder.pageLoaded(env.tab.id);
  await captured(env);

  await env.recorder.userAction(env.tab, { type: "click", target: LINK });
  env.recorder.navigationStarted(env.tab.id);
  Object.assign(env.browser.tabs.get(env.tab.id), { url: LINK.href, screen: "kettles, page 2" });
  await env.recorder.navigationCommitted(env.tab.id, { url: LINK.href, transitionType: "link", transitionQualifiers: [] });
  await env.recorder.pageLoaded(env.tab.id);
  await captured(env);

  const all = await steps(env);
  assert.equal(all.length, 2);
  assert.equal(all[1].url, LINK.href);
  assert.deepEqual(all[1].action, { type: "click", target: LINK });
  assert.equal(env.browser.captures.length, 2);
});

test("a click reported after its page was replaced is the action of the new page's step", async () => {
  const env = await setUp();
  await env.recorder.start({ category: "shopping" });
  const first = env.tab.url;
  await env.recorder.navigationCommitted(env.tab.id, { url: first, transitionType: "typed", documentId: "doc-1" });
  await env.recorder.pageLoaded(env.tab.id);
  await captured(env);

  // The navigation events overtake the click's message.
  Object.assign(env.browser.tabs.get(env.tab.id), { url: LINK.href, screen: "kettles, page 2" });
  env.recorder.navigationStarted(env.tab.id);
  await env.recorder.navigationCommitted(env.tab.id, { url: LINK.href, transitionType: "link", documentId: "doc-2" });
  await env.recorder.pageLoaded(env.tab.id);
  await env.recorder.userAction(env.tab, { type: "click", target: LINK }, { documentId: "doc-1" });
  await captured(env);

  const all = await steps(env);
  assert.deepEqual(all.map((step) => [step.action.type, step.url]), [["navigate", first], ["click", LINK.href]]);
});

for (const order of ["the click first", "the new tab first"]) {
  test(`a link opening a new tab is that tab's first action (${order})`, async () => {
    const env = await setUp();
    await env.recorder.start({ category: "shopping" });
    const opened = env.browser.addTab({ id: 12, url: LINK.href, screen: "kettles, page 2" });
    env.browser.tabs.get(env.tab.id).active = false;

    if (order === "the click first") {
      await env.recorder.userAction(env.tab, { type: "click", target: LINK });
      env.recorder.navigationTargetCreated(env.tab.id, opened.id);
    } else {
      env.recorder.navigationTargetCreated(env.tab.id, opened.id);
      await env.recorder.userAction(env.tab, { type: "click", target: LINK });
    }
    await env.recorder.pageLoaded(opened.id);
    await captured(env);

    const all = await steps(env);
    assert.deepEqual(all.map((step) => [step.action.type, step.url]), [["click", LINK.href]]);
  });
}

test("the Back button gives a back step", async () => {
  const env = await setUp();
  await env.recorder.start({ category: "shopping" });
  const page = (url, screen) => Object.assign(env.browser.tabs.get(env.tab.id), { url, screen });
  const load = async (url, transitionQualifiers = []) => {
    await env.recorder.navigationCommitted(env.tab.id, { url, transitionType: "link", transitionQualifiers });
    await env.recorder.pageLoaded(env.tab.id);
    await captured(env);
  };

  await load("https://shop.example/kettles");
  page("https://shop.example/kettles/42", "kettle 42");
  await load("https://shop.example/kettles/42");
  page("https://shop.example/kettles", "kettles, page 1, again");
  await load("https://shop.example/kettles", ["forward_back"]);

  assert.deepEqual((await steps(env)).map((step) => step.action.type), ["navigate", "navigate", "back"]);
});

test("a page restored from the back/forward cache, completing before its commit was handled, is still a back step", async () => {
  const env = await setUp();
  await env.recorder.start({ category: "shopping" });
  const visit = async (url, screen, transitionQualifiers = []) => {
    Object.assign(env.browser.tabs.get(env.tab.id), { url, screen });
    const committed = env.recorder.navigationCommitted(env.tab.id, { url, transitionType: "link", transitionQualifiers });
    const loaded = env.recorder.pageLoaded(env.tab.id); // no await in between
    await Promise.all([committed, loaded]);
    await captured(env);
  };

  await visit("https://shop.example/a", "a");
  await visit("https://shop.example/b", "b");
  await visit("https://shop.example/a", "a again", ["forward_back"]);

  assert.deepEqual((await steps(env)).map((step) => step.action.type), ["navigate", "navigate", "back"]);
});

test("nothing is captured while paused, in incognito, on blocked sites or on the platform's own pages", async () => {
  const env = await setUp();
  await env.area.set({ catalog: { blocklist: { hosts: ["mail.example.com"], patterns: ["/account"] } } });
  await env.recorder.start({ category: "shopping" });

  await env.recorder.pause();
  await env.recorder.pageLoaded(env.tab.id);
  await env.recorder.userAction(env.tab, { type: "click", target: LINK });
  await captured(env);
  await env.recorder.resume();

  const incognito = env.browser.addTab({ id: 8, windowId: 2, url: "https://shop.example/", incognito: true });
  await env.recorder.userAction(incognito, { type: "click", target: LINK });
  await env.recorder.pageLoaded(incognito.id);
  for (const url of ["https://eu.mail.example.com/inbox", "https://shop.example/account/orders", "https://trailmark.test/profile/"]) {
    Object.assign(env.browser.tabs.get(env.tab.id), { url });
    await env.recorder.pageLoaded(env.tab.id);
    await captured(env);
  }

  assert.equal(env.browser.captures.length, 0, "captureVisibleTab was never called");
  assert.equal((await steps(env)).length, 0);
  assert.deepEqual(env.browser.badges, ["recording", "paused", "recording"]);
});

test("a capture queued before Pause is dropped", async () => {
  const env = await setUp();
  await env.recorder.start({ category: "shopping" });

  await env.recorder.pageLoaded(env.tab.id);
  await env.recorder.pause();
  await captured(env);

  assert.equal(env.browser.captures.length, 0);
  assert.equal((await steps(env)).length, 0);
});

test("a capture under way when the rater presses Stop does not land in the stopped trace", async () => {
  const env = await setUp();
  const { trace } = await env.recorder.start({ category: "shopping" });
  const capture = env.browser.captureVisibleTab;
  env.browser.captureVisibleTab = async (...args) => {
    await env.recorder.stop();
    return capture(...args);
  };

  await env.recorder.pageLoaded(env.tab.id);
  await captured(env);

  assert.equal(env.browser.captures.length, 1);
  assert.deepEqual((await env.store.trace(trace.id)).stepIds, []);
  assert.equal(env.screens.blobs.size, 0);
});

test("a tab switched away from before its capture is not captured", async () => {
  const env = await setUp();
  await env.recorder.start({ category: "shopping" });
  await env.recorder.pageLoaded(env.tab.id);
  env.browser.tabs.get(env.tab.id).active = false;
  env.browser.addTab({ id: 9, url: "https://eu.mail.example.com/", screen: "inbox" });
  await captured(env);

  assert.equal(env.browser.captures.length, 0);
});

test("the HTML is saved when the options ask for it, and JPEG when chosen", async () => {
  const env = await setUp();
  await env.store.saveSettings({ captureHtml: true, imageFormat: "jpeg", jpegQuality: 80 });
  await env.recorder.start({ category: "shopping" });
  await env.recorder.pageLoaded(env.tab.id);
  await captured(env);

  const [step] = await steps(env);
  assert.equal(step.html, "<html><body>kettles, page 1</body></html>");
  assert.deepEqual(env.browser.captures[0].options, { format: "jpeg", quality: 80 });
});

test("after a worker restart the recording goes on: same trace, same status, the last step still deduplicates", async () => {
  const env = await setUp();
  const { trace } = await env.recorder.start({ category: "shopping", categoryName: "Shopping", batch: 3 });
  await env.recorder.pageLoaded(env.tab.id);
  await captured(env);

  // Chrome stops the worker: memory is gone, storage stays. A new worker starts.
  const restarted = { ...env, ...worker(env) };
  await restarted.recorder.restore();

  const recording = await restarted.store.recording();
  assert.equal(recording.status, "recording");
  assert.equal(recording.traceId, trace.id);
  assert.equal((await restarted.store.trace(trace.id)).batch, 3);
  assert.deepEqual(env.browser.badges.at(-1), "recording");

  await restarted.recorder.pageLoaded(env.tab.id); // same page, same screen: a duplicate
  await captured(restarted);
  assert.equal((await steps(restarted)).length, 1);

  env.browser.tabs.get(env.tab.id).screen = "kettles, page 1, sorted by price";
  await restarted.recorder.userAction(env.tab, { type: "click", target: LINK });
  await captured(restarted);
  const all = await steps(restarted);
  assert.equal(all.length, 2);
  assert.ok(all.every((step) => step.traceId === trace.id));

  await restarted.recorder.stop();
  assert.equal((await restarted.store.trace(trace.id)).state, "stopped");
});

test("after a browser restart a recording comes back paused", async () => {
  const env = await setUp();
  await env.recorder.start({ category: "shopping" });

  const restarted = worker(env);
  const recording = await restarted.recorder.restore({ browserStarted: true });

  assert.equal(recording.status, "paused");
  assert.equal(env.browser.badges.at(-1), "paused");
});

test("start, pause, resume and stop refuse the transitions the state does not allow", async () => {
  const env = await setUp();
  await assert.rejects(env.recorder.pause(), { code: "invalid_state" });
  await env.recorder.start({ category: "shopping" });
  await assert.rejects(env.recorder.start({ category: "news" }), { code: "already_recording" });
  await assert.rejects(env.recorder.resume(), { code: "invalid_state" });
  await env.recorder.pause();
  await assert.rejects(env.recorder.pause(), { code: "invalid_state" });
  await env.recorder.stop();
  assert.equal((await env.store.recording()).status, "idle");
  assert.deepEqual(env.browser.badges, ["recording", "paused", "idle"]);
});

const BUY = { tag: "button", text: "Buy", label: "", role: "button", href: "", bbox: [20, 400, 400, 160], pageBbox: [20, 4000, 400, 160], selector: "#buy" };

test("a trace for a full-page batch captures whole pages, with page-absolute boxes, and puts the scroll back", async () => {
  const env = await setUp();
  Object.assign(env.browser.tabs.get(env.tab.id), { pageHeight: 2600, scroll: { x: 0, y: 300 } });
  await env.recorder.start({ category: "shopping", batch: 4, fullPage: "stitch" });

  await env.recorder.pageLoaded(env.tab.id);
  await captured(env, 10_000);
  env.browser.tabs.get(env.tab.id).screen = "kettles, bought";
  await env.recorder.userAction(env.tab, { type: "click", target: BUY });
  await captured(env, 10_000);

  const [loaded, clicked] = await steps(env);
  assert.equal(loaded.fullPage, true);
  const image = JSON.parse(await env.screens.blobs.get(loaded.id).text());
  assert.deepEqual(image.parts.map((part) => part.top), [0, 1600, 3200, 3600]);
  assert.equal(image.height, 5200);
  assert.deepEqual(loaded.clickables.find((item) => item.text === "Buy").bbox, [20, 4000, 60, 80]);
  assert.deepEqual(loaded.scroll, { x: 0, y: 300 }, "described where the rater left it");
  assert.deepEqual(env.browser.tabs.get(env.tab.id).scroll, { x: 0, y: 300 });
  assert.equal(clicked.fullPage, true);
  assert.deepEqual(clicked.action, {
    type: "click",
    target: { tag: "button", text: "Buy", label: "", role: "button", href: "", bbox: [20, 4000, 400, 160], selector: "#buy" },
  });
});

test("in a full-page trace, scrolling alone is no new step: the whole page looks the same", async () => {
  const env = await setUp();
  env.browser.tabs.get(env.tab.id).pageHeight = 2000;
  await env.recorder.start({ category: "shopping", fullPage: "stitch" });
  await env.recorder.pageLoaded(env.tab.id);
  await captured(env, 10_000);

  env.browser.tabs.get(env.tab.id).scroll = { x: 0, y: 900 };
  await env.recorder.userAction(env.tab, { type: "scroll" });
  await captured(env, 10_000);

  assert.equal((await steps(env)).length, 1);
});

test("a page that cannot be scrolled by the extension is captured as a viewport step", async () => {
  const env = await setUp();
  Object.assign(env.browser.tabs.get(env.tab.id), { scriptable: false, pageHeight: 3000 });
  await env.recorder.start({ category: "shopping", fullPage: "stitch" });
  await env.recorder.pageLoaded(env.tab.id);
  await captured(env, 10_000);
  env.browser.tabs.get(env.tab.id).screen = "changed";
  await env.recorder.userAction(env.tab, { type: "click", target: BUY });
  await captured(env, 10_000);

  const all = await steps(env);
  assert.deepEqual(all.map((step) => step.fullPage), [false, false]);
  assert.equal(await env.screens.blobs.get(all[0].id).text(), "kettles, page 1");
  assert.deepEqual(all.at(-1).action.target.bbox, [20, 400, 400, 160]);
  assert.equal("pageBbox" in all.at(-1).action.target, false);
});

test("a viewport trace keeps viewport boxes even when the page reported page-absolute ones too", async () => {
  const env = await setUp();
  await env.recorder.start({ category: "shopping" });
  await env.recorder.userAction(env.tab, { type: "click", target: BUY });
  await captured(env);

  const [step] = await steps(env);
  assert.equal(step.fullPage, false);
  assert.deepEqual(step.action.target.bbox, [20, 400, 400, 160]);
  assert.equal("pageBbox" in step.action.target, false);
  assert.deepEqual(env.browser.pageCommands, [], "no full-page scrolling");
});
