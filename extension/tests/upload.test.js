import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";

import { createApi } from "../lib/api.js";
import { createStore } from "../lib/store.js";
import { uploadStoredTrace } from "../lib/upload.js";
import { fakeClock, fakeScreens, fakeStorageArea } from "./fakes.js";
import { fakePlatform } from "./fake-platform.js";

/** A stopped trace of `count` steps in a fresh store, as the recorder leaves it. */
async function recordedTrace({ count = 3, html = false, fullPage = false } = {}) {
  const screens = fakeScreens();
  const store = createStore({ area: fakeStorageArea(), screens });
  const traceId = randomUUID();
  await store.startTrace({ id: traceId, category: "shopping", categoryName: "Shopping", batch: 5, startedAt: "2026-11-29T14:00:00.000Z" });
  const stepIds = [];
  for (let index = 0; index < count; index += 1) {
    const step = {
      id: randomUUID(),
      traceId,
      capturedAt: `2026-11-29T14:00:0${index}.000Z`,
      url: `https://shop.example/kettles?page=${index}`,
      title: `Kettles, page ${index}`,
      viewport: { width: 1280, height: 800 },
      devicePixelRatio: 2,
      scroll: { x: 0, y: 100 * index },
      action: index === 0
        ? { type: "navigate", target: null }
        : { type: "click", target: { tag: "a", text: "Next page", label: "", role: "link", href: `https://shop.example/kettles?page=${index}`, bbox: [10, 20, 30, 40], selector: "nav > a" } },
      clickables: [{ tag: "a", text: "Next page", alt: "", href: "https://shop.example/kettles?page=9", bbox: [10, 20, 30, 40], selector: "nav > a" }],
      mime: "image/png",
      stored: false,
      ...(html ? { html: "<html></html>" } : {}),
      ...(fullPage ? { fullPage: true } : {}),
    };
    await store.appendStep(step, new Blob([`png bytes ${index}`], { type: "image/png" }), { key: `key ${index}` });
    stepIds.push(step.id);
  }
  await store.transition("stop");
  return { store, screens, traceId, stepIds };
}

function setUp(options) {
  const platform = fakePlatform();
  const clock = fakeClock();
  const api = createApi({ baseUrl: platform.base, token: "secret-token", fetch: platform.fetch });
  return { platform, clock, api, ...options };
}

async function upload({ store, screens, traceId }, { api, clock }) {
  return uploadStoredTrace({
    store,
    api,
    traceId,
    loadScreenshot: (id) => screens.get(id),
    userAgent: "Chrome test",
    sleep: clock.sleep,
  });
}

test("every kept step is posted with its position, and the trace is finished with the step count after the last one", async () => {
  const local = await recordedTrace({ count: 3 });
  const { platform, clock, api } = setUp();

  const trace = await upload(local, { api, clock });

  assert.deepEqual(platform.calls.map((call) => call.route), [
    "POST traces", "GET trace", "POST steps", "POST steps", "POST steps", "POST finish",
  ]);
  const created = platform.calls[0].body;
  assert.deepEqual(created, { client_id: local.traceId, category: "shopping", batch: 5, started_at: "2026-11-29T14:00:00.000Z", user_agent: "Chrome test" });
  const remote = platform.traces.get(trace.serverId);
  assert.equal(remote.state, "finished");
  assert.deepEqual(remote.steps.map((step) => [step.client_id, step.position]), local.stepIds.map((id, index) => [id, index]));

  const first = platform.stepPosts()[1];
  assert.deepEqual(Object.keys(first.step).sort(), [
    "action", "captured_at", "clickables", "client_id", "device_pixel_ratio", "full_page", "position", "scroll", "title", "url", "viewport",
  ]);
  assert.equal(first.step.full_page, false);
  assert.equal(first.step.device_pixel_ratio, 2);
  assert.equal(first.step.action.target.text, "Next page");
  assert.equal(first.screenshot.name, `${local.stepIds[1]}.png`);
  assert.equal(await first.screenshot.text(), "png bytes 1");
  assert.deepEqual(platform.calls.at(-1).init.body, JSON.stringify({ step_count: 3 }));

  assert.equal(trace.state, "finished");
  assert.deepEqual(trace.upload, { done: 3, total: 3, error: null, retrying: null });
  assert.ok((await local.store.steps(local.traceId)).every((step) => step.stored));
});

test("a step request that fails on the network is retried with growing pauses", async () => {
  const local = await recordedTrace({ count: 2 });
  const { platform, clock, api } = setUp();
  platform.fail("POST steps", { times: 2, kind: "network" });

  const trace = await upload(local, { api, clock });

  assert.equal(trace.state, "finished");
  assert.deepEqual(clock.sleeps, [1000, 2000]);
  assert.equal(platform.stepPosts().length, 4);
  assert.equal(platform.traces.get(trace.serverId).steps.length, 2);
});

test("a server error and a throttled answer are retried too, the latter after its Retry-After", async () => {
  const local = await recordedTrace({ count: 1 });
  const { platform, clock, api } = setUp();
  platform.fail("POST traces", { times: 1, kind: "status", status: 503 });
  const throttled = platform.fetch;
  let throttledOnce = false;
  const fetch = async (url, init) => {
    if (!throttledOnce && init.method === "POST" && url.endsWith("/finish/")) {
      throttledOnce = true;
      return new Response(JSON.stringify({ error: { code: "throttled", message: "Slow down.", fields: {} } }), {
        status: 429,
        headers: { "Retry-After": "45" }, // longer than the backoff's cap: still honoured
      });
    }
    return throttled(url, init);
  };

  const trace = await upload(local, { api: createApi({ baseUrl: platform.base, token: "secret-token", fetch }), clock });

  assert.equal(trace.state, "finished");
  assert.deepEqual(clock.sleeps, [1000, 45000]);
});

test("a step stored whose answer was lost is sent again, answered with the stored step, and not duplicated", async () => {
  const local = await recordedTrace({ count: 3 });
  const { platform, clock, api } = setUp();
  platform.fail("POST steps", { times: 1, kind: "lost" });

  const trace = await upload(local, { api, clock });

  const remote = platform.traces.get(trace.serverId);
  assert.equal(platform.stepPosts().length, 4);
  assert.equal(remote.steps.length, 3);
  assert.equal(remote.state, "finished");
});

test("a trace created whose answer was lost is found again by its client id", async () => {
  const local = await recordedTrace({ count: 1 });
  const { platform, clock, api } = setUp();
  platform.fail("POST traces", { times: 1, kind: "lost" });

  const trace = await upload(local, { api, clock });

  assert.equal(platform.traces.size, 1);
  assert.equal(trace.serverId, [...platform.traces.keys()][0]);
});

test("steps the platform already has are skipped", async () => {
  const local = await recordedTrace({ count: 3 });
  const { platform, clock, api } = setUp();
  const remote = platform.seed({ clientId: local.traceId, storedStepIds: local.stepIds.slice(0, 2) });
  await local.store.updateTrace(local.traceId, { serverId: remote.id });

  const trace = await upload(local, { api, clock });

  assert.deepEqual(platform.stepPosts().map((call) => call.step.client_id), [local.stepIds[2]]);
  assert.equal(platform.stepPosts()[0].step.position, 2);
  assert.equal(platform.calls.some((call) => call.route === "POST traces"), false);
  assert.equal(trace.state, "finished");
  assert.equal(remote.state, "finished");
});

test("a refused step stops the upload before the trace is finished, and says why", async () => {
  const local = await recordedTrace({ count: 3 });
  const { platform, clock, api } = setUp();
  platform.fail("POST steps", { times: 1, kind: "status", status: 400 });

  await assert.rejects(upload(local, { api, clock }), /Injected failure/);

  assert.equal(platform.calls.some((call) => call.route === "POST finish"), false);
  assert.deepEqual(clock.sleeps, [], "a 400 is not retried");
  const trace = await local.store.trace(local.traceId);
  assert.equal(trace.state, "stopped");
  assert.equal(trace.upload.error.message, "Injected failure.");
  assert.equal([...platform.traces.values()][0].state, "uploading");
});

test("after the retries run out the upload stops; the next one resumes with only what is missing", async () => {
  const local = await recordedTrace({ count: 3 });
  const { platform, clock, api } = setUp();
  // The first step goes through, then the platform is down for longer than the retries.
  let posted = 0;
  const flaky = async (url, init) => {
    if (url.endsWith("/steps/") && ++posted > 1 && posted <= 7) throw new TypeError("fetch failed");
    return platform.fetch(url, init);
  };
  const flakyApi = createApi({ baseUrl: platform.base, token: "secret-token", fetch: flaky });

  await assert.rejects(upload(local, { api: flakyApi, clock }), /Could not reach/);
  assert.deepEqual(clock.sleeps, [1000, 2000, 4000, 8000, 16000]);
  const interrupted = await local.store.trace(local.traceId);
  assert.equal(interrupted.state, "stopped");
  assert.equal(interrupted.upload.done, 1);
  assert.equal(platform.calls.some((call) => call.route === "POST finish"), false);

  const before = platform.stepPosts().length;
  const trace = await upload(local, { api, clock });

  assert.equal(trace.state, "finished");
  assert.deepEqual(platform.stepPosts().slice(before).map((call) => call.step.client_id), local.stepIds.slice(1));
  assert.equal(platform.traces.get(trace.serverId).steps.length, 3);
});

test("if the platform lost a step, finishing is refused and the missing step is sent again", async () => {
  const local = await recordedTrace({ count: 2 });
  const { platform, clock, api } = setUp();
  let dropped = false;
  const forgetful = async (url, init) => {
    const response = await platform.fetch(url, init);
    if (!dropped && url.endsWith("/steps/")) {
      dropped = true;
      for (const trace of platform.traces.values()) trace.steps.length = 0; // stored, then lost
    }
    return response;
  };

  const trace = await upload(local, { api: createApi({ baseUrl: platform.base, token: "secret-token", fetch: forgetful }), clock });

  assert.equal(trace.state, "finished");
  const finishes = platform.calls.filter((call) => call.route === "POST finish");
  assert.equal(finishes.length, 2);
  assert.equal(platform.traces.get(trace.serverId).steps.length, 2);
});

test("a deleted step is never sent, and the count finished is that of the kept steps", async () => {
  const local = await recordedTrace({ count: 3, html: true });
  const { platform, clock, api } = setUp();
  await local.store.deleteStep(local.traceId, local.stepIds[1]);

  const trace = await upload(local, { api, clock });

  const sent = platform.stepPosts().map((call) => call.step.client_id);
  assert.deepEqual(sent, [local.stepIds[0], local.stepIds[2]]);
  assert.deepEqual(platform.stepPosts().map((call) => call.step.position), [0, 1]);
  assert.equal(platform.stepPosts()[0].step.html, "<html></html>");
  assert.equal(platform.calls.at(-1).init.body, JSON.stringify({ step_count: 2 }));
  assert.equal(local.screens.blobs.has(local.stepIds[1]), false);
  assert.equal(trace.state, "finished");
});

test("once the trace is on the platform its steps can no longer be deleted", async () => {
  const local = await recordedTrace({ count: 2 });
  const { clock, api } = setUp();
  await upload(local, { api, clock });

  await assert.rejects(local.store.deleteStep(local.traceId, local.stepIds[0]), { code: "upload_started" });
  assert.equal((await local.store.steps(local.traceId)).length, 2);
});

test("a trace still being recorded is not uploaded", async () => {
  const screens = fakeScreens();
  const store = createStore({ area: fakeStorageArea(), screens });
  const traceId = randomUUID();
  await store.startTrace({ id: traceId, category: "shopping", startedAt: "2026-11-29T14:00:00.000Z" });
  const { platform, clock, api } = setUp();

  await assert.rejects(upload({ store, screens, traceId }, { api, clock }), { code: "still_recording" });
  assert.equal(platform.calls.length, 0);
});

test("a full-page step says so: full_page is true", async () => {
  const local = await recordedTrace({ count: 2, fullPage: true });
  const { platform, clock, api } = setUp();

  await upload(local, { api, clock });

  assert.deepEqual(platform.stepPosts().map((post) => post.step.full_page), [true, true]);
});
