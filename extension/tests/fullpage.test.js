import assert from "node:assert/strict";
import { test } from "node:test";

import "../lib/describe.js"; // a classic script: it leaves its functions on globalThis
import {
  captureFullPage, captureStitched, composeParts, fullPageMode, MAX_HEIGHT, partTop, stitchPlan,
} from "../lib/fullpage.js";
import { createPacer, RATE_LIMIT_MARKER } from "../lib/pacing.js";
import { fakeDocument, h } from "./fake-dom.js";
import { fakeBrowser, fakeClock } from "./fakes.js";

const { collectClickables, describePage, describeTarget } = globalThis.TrailmarkDescribe;
const VIEWPORT = { viewportHeight: 800, viewportWidth: 1280 };

// ----- the stitching arithmetic -----

test("a page of whole viewports is cut into parts one viewport apart, with no overlap", () => {
  const plan = stitchPlan({ pageHeight: 4000, ...VIEWPORT, dpr: 1 });
  assert.deepEqual(plan, { width: 1280, height: 4000, positions: [0, 800, 1600, 2400, 3200] });
});

test("the last part stops where the page stops scrolling, and overlaps the part before", () => {
  const plan = stitchPlan({ pageHeight: 4100, ...VIEWPORT, dpr: 1 });
  assert.deepEqual(plan.positions, [0, 800, 1600, 2400, 3200, 3300]);
  assert.equal(plan.height, 4100);
  // Placed by where the page really scrolled: its bottom row is the image's bottom row.
  assert.equal(partTop(3300, 1) + 800, plan.height);
});

test("parts and heights are in screenshot pixels at the device pixel ratio", () => {
  const plan = stitchPlan({ pageHeight: 2500, ...VIEWPORT, dpr: 2 });
  assert.deepEqual(plan, { width: 2560, height: 5000, positions: [0, 800, 1600, 1700] });
  assert.equal(partTop(1700, 2), 3400);
  assert.equal(partTop(333.4, 1.5), 500);
});

test("a page shorter than the viewport is one part, as tall as the viewport", () => {
  assert.deepEqual(stitchPlan({ pageHeight: 300, ...VIEWPORT, dpr: 1 }), { width: 1280, height: 800, positions: [0] });
});

test("an endless page is cut at 30000 screenshot pixels", () => {
  const plan = stitchPlan({ pageHeight: 250_000, ...VIEWPORT, dpr: 1 });
  assert.equal(MAX_HEIGHT, 30_000);
  assert.equal(plan.height, 30_000);
  assert.equal(plan.positions.length, 38);
  assert.equal(plan.positions.at(-1), 29_600);
});

test("a wide high-DPR page is cut shorter so the image stays under the platform's pixel limit", () => {
  const plan = stitchPlan({ pageHeight: 250_000, ...VIEWPORT, dpr: 2 });
  assert.equal(plan.width, 2560);
  assert.equal(plan.height, Math.floor(50_000_000 / 2560));
  assert.ok(plan.width * plan.height <= 50_000_000);
  assert.ok(plan.positions.at(-1) * 2 < plan.height && (plan.positions.at(-1) + 800) * 2 >= plan.height);
});

test("only known full-page modes are used; anything else captures the viewport", () => {
  assert.deepEqual(["stitch", "debugger", "", undefined, "magic", null].map(fullPageMode), ["stitch", "debugger", "", "", "", ""]);
});

// ----- stitching -----

function fakePage({ pageHeight, dpr = 1, failAt = null }) {
  const calls = [];
  let scrollY = 137; // where the rater was
  return {
    calls,
    begin: async () => (calls.push(["begin"]), { pageHeight, ...VIEWPORT, dpr }),
    scrollTo: async (y, { hideRepeating }) => {
      calls.push(["scroll", y, hideRepeating]);
      if (failAt === y) throw new Error("The page went away.");
      scrollY = Math.min(y, pageHeight - 800);
      return { scrollY };
    },
    end: async () => {
      calls.push(["end"]);
      scrollY = 137;
    },
    get scrollY() {
      return scrollY;
    },
  };
}

test("each part is drawn at the real scroll position, repeating elements hidden after the first, and the scroll restored", async () => {
  const page = fakePage({ pageHeight: 2000, dpr: 2 });
  let images = 0;
  const captureVisible = async () => `data:image/png;base64,${Buffer.from(`part at ${page.scrollY}`).toString("base64")}`;
  const compose = async (image) => ((images += 1), image);

  const { blob: image, parts } = await captureStitched({ page, captureVisible, compose });

  assert.equal(parts, 3);
  assert.equal(images, 1);
  assert.deepEqual([image.width, image.height], [2560, 4000]);
  assert.deepEqual(image.parts.map((part) => part.top), [0, 1600, 2400]);
  assert.deepEqual(page.calls, [["begin"], ["scroll", 0, false], ["scroll", 800, true], ["scroll", 1200, true], ["end"]]);
  assert.equal(page.scrollY, 137);
});

test("the page gets its scroll position back even when a part fails", async () => {
  const page = fakePage({ pageHeight: 3000, failAt: 1600 });
  const captureVisible = async () => "data:image/png;base64,AA==";
  await assert.rejects(captureStitched({ page, captureVisible, compose: async () => null }), /went away/);
  assert.deepEqual(page.calls.at(-1), ["end"]);
});

function fakeCanvas(log, sizes) {
  return (width, height) => {
    log.push(["canvas", width, height]);
    return {
      width,
      getContext: () => ({ fillRect() {}, drawImage: (bitmap, x, y) => log.push(["draw", bitmap.label, x, y]) }),
      async convertToBlob({ type, quality }) {
        log.push(["encode", type, quality]);
        return new Blob([new Uint8Array(sizes[type] ?? 10)], { type });
      },
    };
  };
}

test("the parts are drawn one under the other on a canvas as wide as a part, and encoded once", async () => {
  const log = [];
  const decode = async (blob) => ({ width: 1280, height: 800, label: await blob.text(), close: () => log.push(["close"]) });
  const parts = ["top", "middle", "bottom"].map((label, index) => ({
    dataUrl: `data:image/png;base64,${Buffer.from(label).toString("base64")}`,
    top: [0, 800, 1100][index],
  }));

  const blob = await composeParts({ width: 1280, height: 1900, parts }, { decode, createCanvas: fakeCanvas(log, {}) });

  assert.equal(blob.type, "image/png");
  assert.deepEqual(log.filter(([what]) => what !== "close"), [
    ["canvas", 1280, 1900],
    ["draw", "top", 0, 0],
    ["draw", "middle", 0, 800],
    ["draw", "bottom", 0, 1100],
    ["encode", "image/png", undefined],
  ]);
  assert.equal(log.filter(([what]) => what === "close").length, 3);
});

test("a PNG too big for the platform is sent as JPEG", async () => {
  const log = [];
  const decode = async () => ({ width: 1280, height: 800, label: "part" });
  const parts = [{ dataUrl: "data:image/png;base64,AA==", top: 0 }];
  const createCanvas = fakeCanvas(log, { "image/png": 300, "image/jpeg": 100 });

  const blob = await composeParts({ width: 1280, height: 800, parts }, { decode, createCanvas, maxBytes: 200 });

  assert.equal(blob.type, "image/jpeg");
  assert.deepEqual(log.filter(([what]) => what === "encode"), [["encode", "image/png", undefined], ["encode", "image/jpeg", 0.9]]);
});

// ----- debugger, and falling back to stitching -----

function fullPageSetUp({ pageHeight = 2000 } = {}) {
  const browser = fakeBrowser();
  const clock = fakeClock();
  const tab = browser.addTab({ id: 3, url: "https://shop.example/long", screen: "long page", pageHeight });
  const pacer = createPacer({ now: clock.now, sleep: clock.sleep });
  return { browser, clock, tab, pacer };
}

test("debugger mode, where granted, takes the whole page in one screenshot and detaches", async () => {
  const { browser, tab, pacer } = fullPageSetUp({ pageHeight: 5000 });
  browser.debuggerAllowed = true;

  const shot = await captureFullPage({ mode: "debugger", tab, pacer, browser });

  assert.equal(shot.mode, "debugger");
  assert.equal(await shot.blob.text(), "long page, whole page");
  assert.equal(browser.captures.length, 0, "no captureVisibleTab");
  const methods = browser.debuggerCommands.map(([method]) => method);
  assert.deepEqual(methods, ["attach", "Runtime.evaluate", "Page.getLayoutMetrics", "Page.captureScreenshot", "detach"]);
  const [, params] = browser.debuggerCommands.find(([method]) => method === "Page.captureScreenshot");
  assert.deepEqual(params, { format: "png", captureBeyondViewport: true, clip: { x: 0, y: 0, width: 1280, height: 5000, scale: 1 } });
});

test("debugger mode caps the clip at 30000 screenshot pixels (15000 CSS pixels at DPR 2 … and the pixel limit)", async () => {
  const { browser, tab, pacer } = fullPageSetUp({ pageHeight: 100_000 });
  browser.debuggerAllowed = true;

  await captureFullPage({ mode: "debugger", tab, pacer, browser, options: { format: "jpeg", quality: 80 } });

  const [, params] = browser.debuggerCommands.find(([method]) => method === "Page.captureScreenshot");
  assert.equal(params.clip.height * 2, Math.floor(50_000_000 / 2560));
  assert.equal(params.quality, 80);
});

test("debugger mode without the permission stitches instead", async () => {
  const { browser, tab, pacer } = fullPageSetUp({ pageHeight: 2000 });

  const shot = await captureFullPage({ mode: "debugger", tab, pacer, browser });

  assert.equal(shot.mode, "stitch");
  assert.deepEqual(browser.debuggerCommands, []);
  const image = JSON.parse(await shot.blob.text());
  assert.deepEqual(image.parts, [
    { top: 0, shows: "long page" },
    { top: 1600, shows: "long page @800" },
    { top: 2400, shows: "long page @1200" },
  ]);
  assert.deepEqual([image.width, image.height], [2560, 4000]);
});

test("debugger mode stitches when attaching fails (DevTools open)", async () => {
  const { browser, tab, pacer } = fullPageSetUp();
  browser.debuggerAllowed = true;
  browser.debuggerFails = true;
  const logged = [];

  const shot = await captureFullPage({ mode: "debugger", tab, pacer, browser, log: (...args) => logged.push(args) });

  assert.equal(shot.mode, "stitch");
  assert.deepEqual(browser.debuggerCommands.map(([method]) => method), ["attach"]);
  assert.match(logged[0][0], /stitching/);
});

// ----- Chrome's capture quota -----

test("stitched parts are captured at least 500 ms apart, and one refused for the rate is tried again", async () => {
  const { browser, clock, tab, pacer } = fullPageSetUp({ pageHeight: 4000 });
  const times = [];
  const capture = browser.captureVisibleTab;
  let refused = false;
  browser.captureVisibleTab = async (...args) => {
    times.push(clock.now());
    if (times.length === 3 && !refused) {
      refused = true;
      throw new Error(`This request exceeds the ${RATE_LIMIT_MARKER} quota.`);
    }
    return capture(...args);
  };

  const shot = await captureFullPage({ mode: "stitch", tab, pacer, browser });

  const image = JSON.parse(await shot.blob.text());
  assert.equal(image.parts.length, 5);
  assert.equal(times.length, 6, "five parts, one of them twice");
  for (let index = 1; index < times.length; index += 1) assert.ok(times[index] - times[index - 1] >= 500, times.join(", "));
  assert.ok(browser.captures.every((item) => item.options.format === "png"), "parts are lossless");
});

// ----- page-absolute boxes -----

function longPage() {
  const top = h("a", { href: "/" }, { text: "Home", rect: [10, 10, 80, 20] });
  const far = h("button", { id: "buy" }, { text: "Buy", rect: [40, 2100.4, 200, 80] }); // viewport coordinates
  const hidden = h("button", {}, { text: "Hidden", rect: [0, 3000, 50, 20], visible: false });
  const empty = h("a", { href: "/empty" }, { text: "", rect: [0, 3100, 0, 0] });
  const headerLink = h("a", { href: "/cart" }, { text: "Cart", rect: [1200, 5, 60, 30] });
  const header = h("header", { class: "fixed" }, {}, headerLink);
  const document = fakeDocument(header, top, far, hidden, empty);
  const positionOf = (el) => (el === header ? "fixed" : "static");
  return { document, far, headerLink, positionOf };
}

test("full-page clickables are the whole page's, with page-absolute boxes in screenshot pixels", () => {
  const { document, positionOf } = longPage();
  const scroll = { x: 0, y: 500 };

  const clickables = collectClickables(document, { dpr: 2, scroll, positionOf });

  assert.deepEqual(clickables.map((item) => [item.text, item.bbox]), [
    ["Cart", [2400, 10, 120, 60]], // in a fixed header: where the first part shows it
    ["Home", [20, 1020, 160, 40]],
    ["Buy", [80, 5201, 400, 160]], // (2100.4 + 500) × 2
  ]);
});

test("viewport clickables are unchanged: only those in view, relative to the viewport", () => {
  const { document, positionOf } = longPage();
  const clickables = collectClickables(document, { dpr: 2, viewport: { width: 1280, height: 800 }, positionOf });
  assert.deepEqual(clickables.map((item) => [item.text, item.bbox]), [["Cart", [2400, 10, 120, 60]], ["Home", [20, 20, 160, 40]]]);
});

test("the count limit holds over the whole page", () => {
  const links = Array.from({ length: 30 }, (_, index) => h("a", { href: `/p/${index}` }, { text: `P${index}`, rect: [0, index * 900, 50, 10] }));
  const clickables = collectClickables(fakeDocument(...links), { scroll: { x: 0, y: 0 }, limit: 10 });
  assert.equal(clickables.length, 10);
  assert.equal(clickables[9].bbox[1], 8100);
});

test("a target's pageBbox is its box in a full-page screenshot; its bbox stays the viewport one", () => {
  const { far, headerLink, positionOf } = longPage();

  const target = describeTarget(far, { dpr: 2, scroll: { x: 0, y: 500 }, positionOf });
  assert.deepEqual(target.bbox, [80, 4201, 400, 160]);
  assert.deepEqual(target.pageBbox, [80, 5201, 400, 160]);
  assert.deepEqual(describeTarget(headerLink, { dpr: 2, scroll: { x: 0, y: 500 }, positionOf }).pageBbox, [2400, 10, 120, 60]);
  assert.equal("pageBbox" in describeTarget(far, { dpr: 2 }), false);
});

test("a full-page description says so and lists the clickables below the viewport", () => {
  const { document } = longPage();
  document.title = "Long";
  const win = { document, location: { href: "https://shop.example/long" }, devicePixelRatio: 1, innerWidth: 1280, innerHeight: 800, scrollX: 0, scrollY: 300 };

  const whole = describePage(win, { fullPage: true });
  const visible = describePage(win);

  assert.equal(whole.fullPage, true);
  assert.equal("fullPage" in visible, false);
  assert.deepEqual(whole.clickables.find((item) => item.text === "Buy").bbox, [40, 2400, 200, 80]);
  assert.equal(visible.clickables.some((item) => item.text === "Buy"), false);
});

test("a debugger screenshot that fails after attaching detaches, then stitches", async () => {
  const { browser, tab, pacer } = fullPageSetUp();
  browser.debuggerAllowed = true;
  const send = browser.debuggee.sendCommand;
  browser.debuggee.sendCommand = async (target, method, params) => {
    if (method === "Page.captureScreenshot") throw new Error("Unable to capture screenshot");
    return send(target, method, params);
  };

  const shot = await captureFullPage({ mode: "debugger", tab, pacer, browser });

  assert.equal(shot.mode, "stitch");
  assert.equal(browser.debuggerCommands.at(-1)[0], "detach");
  assert.deepEqual(tab.scroll, { x: 0, y: 0 });
});
