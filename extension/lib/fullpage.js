/**
 * Full-page screenshots, for batches that ask for them (the batch's `capture.full_page`,
 * kept on the trace as `fullPage`):
 *
 * - "stitch": the page is scrolled viewport by viewport, each viewport captured with
 *   captureVisibleTab through the pacer (Chrome allows two calls a second), and the parts
 *   drawn one under the other on an OffscreenCanvas at the scroll position the page really
 *   took, so the last part, which overlaps the one before, lands where it belongs. The
 *   page's scroll position is restored afterwards. Fixed elements, and sticky ones moved
 *   from where they sit in the page, are hidden after the first part so that they do not
 *   repeat in every part (lib/../content.js does the page's side).
 * - "debugger": one Page.captureScreenshot with captureBeyondViewport through
 *   chrome.debugger, only where the rater granted the optional "debugger" permission;
 *   otherwise (or when attaching fails, e.g. DevTools is open on the tab) it is stitched.
 *
 * The image is the viewport's width and at most MAX_HEIGHT screenshot pixels tall.
 */

import { hashString } from "./dedup.js";
import { dataUrlToBlob } from "./screens.js";

export const FULL_PAGE_MODES = Object.freeze(["", "stitch", "debugger"]);

// 30000 px tall is the platform's largest full-page screenshot (1280×30000); an endless
// page (a feed) is cut there. The platform also refuses images over 50 million pixels or
// 20 MB (ASSET_MAX_PIXELS, ASSET_MAX_BYTES), so a wide (high-DPR) page is cut shorter,
// and a PNG over 20 MB is sent as JPEG.
export const MAX_HEIGHT = 30_000;
export const MAX_PIXELS = 50_000_000;
export const MAX_BYTES = 20 * 1024 * 1024;

/** A batch's mode as the extension uses it: anything unknown is the viewport (""). */
export function fullPageMode(value) {
  return FULL_PAGE_MODES.includes(value) ? value : "";
}

/**
 * The full-page image's size in screenshot pixels, and the scroll positions (CSS pixels)
 * of its parts: one viewport apart, the last one no further than the page can scroll.
 */
export function stitchPlan({ pageHeight, viewportHeight, viewportWidth, dpr = 1, maxHeight = MAX_HEIGHT, maxPixels = MAX_PIXELS }) {
  const scale = Number(dpr) > 0 ? Number(dpr) : 1;
  const step = Math.max(1, Math.floor(viewportHeight));
  const width = Math.max(1, Math.round(viewportWidth * scale));
  const cap = Math.min(maxHeight, Math.floor(maxPixels / width));
  const height = Math.max(1, Math.min(Math.round(Math.max(pageHeight, viewportHeight) * scale), cap));
  const lastScroll = Math.max(0, Math.floor(pageHeight - viewportHeight));
  const positions = [];
  for (let y = 0; y * scale < height; y += step) {
    positions.push(Math.min(y, lastScroll));
    if (y >= lastScroll) break;
  }
  return { width, height, positions };
}

/** Where a part captured at `scrollY` (CSS pixels) goes in the full-page image. */
export function partTop(scrollY, dpr = 1) {
  return Math.round(scrollY * (Number(dpr) > 0 ? Number(dpr) : 1));
}

/** Raised when the rater switched tabs or pages during a capture: the capture is dropped. */
export class TabChanged extends Error {
  constructor() {
    super("the tab changed during the capture");
    this.name = "TabChanged";
  }
}

/**
 * Scrolls and captures the parts, restores the page, and draws them together.
 * `page` is the content script's side (begin / scrollTo / end); `captureVisible` takes one
 * paced viewport capture (a PNG data URL); `compose` draws the parts (composeParts).
 */
export async function captureStitched({ page, captureVisible, compose }) {
  const metrics = await page.begin();
  let plan;
  const parts = [];
  try {
    plan = stitchPlan(metrics);
    for (const [index, y] of plan.positions.entries()) {
      const { scrollY } = await page.scrollTo(y, { hideRepeating: index > 0 });
      const dataUrl = await captureVisible();
      parts.push({ dataUrl, top: partTop(scrollY, metrics.dpr) });
    }
  } finally {
    await page.end();
  }
  const blob = await compose({ width: plan.width, height: plan.height, parts });
  // The parts' own hashes: equal pages give equal hashes without hashing the big image.
  const hash = hashString(parts.map((part) => `${part.top}:${hashString(part.dataUrl)}`).join("|"));
  return { blob, hash, parts: parts.length };
}

/**
 * Draws `parts` ({dataUrl, top}) onto one image `height` pixels tall (as wide as the
 * parts), encodes it as `format`, and falls back to JPEG when a PNG is too big to upload.
 */
export async function composeParts(
  { width, height, parts, format = "png", quality = 90 },
  { decode = (blob) => createImageBitmap(blob), createCanvas = (w, h) => new OffscreenCanvas(w, h), maxBytes = MAX_BYTES } = {},
) {
  let canvas = null;
  let context = null;
  for (const part of parts) {
    const bitmap = await decode(dataUrlToBlob(part.dataUrl));
    if (!canvas) {
      canvas = createCanvas(bitmap.width || width, height);
      context = canvas.getContext("2d");
      context.fillStyle = "#fff";
      context.fillRect(0, 0, canvas.width, height);
    }
    context.drawImage(bitmap, 0, part.top);
    bitmap.close?.();
  }
  const encode = (type, q) => canvas.convertToBlob(q === undefined ? { type } : { type, quality: q });
  let blob = format === "jpeg" ? await encode("image/jpeg", quality / 100) : await encode("image/png");
  for (const q of [0.9, 0.75]) {
    if (blob.size <= maxBytes) break;
    blob = await encode("image/jpeg", q);
  }
  return blob;
}

/**
 * The whole page in one screenshot through the Chrome DevTools Protocol. `debuggee` is
 * chrome.debugger's attach/sendCommand/detach; the debugger is always detached again.
 */
export async function captureWithDebugger({ tabId, debuggee, format = "png", quality = 90 }) {
  const target = { tabId };
  await debuggee.attach(target, "1.3");
  try {
    const { result } = await debuggee.sendCommand(target, "Runtime.evaluate", { expression: "window.devicePixelRatio", returnByValue: true });
    const dpr = Number(result?.value) || 1;
    const metrics = await debuggee.sendCommand(target, "Page.getLayoutMetrics");
    const viewport = metrics.cssLayoutViewport ?? metrics.layoutViewport;
    const content = metrics.cssContentSize ?? metrics.contentSize;
    const plan = stitchPlan({ pageHeight: content.height, viewportHeight: viewport.clientHeight, viewportWidth: viewport.clientWidth, dpr });
    const params = {
      format,
      captureBeyondViewport: true,
      // In CSS pixels from the page's top left corner; the image comes out × devicePixelRatio.
      clip: { x: 0, y: 0, width: viewport.clientWidth, height: plan.height / dpr, scale: 1 },
    };
    if (format === "jpeg") params.quality = quality;
    const { data } = await debuggee.sendCommand(target, "Page.captureScreenshot", params);
    return `data:image/${format};base64,${data}`;
  } finally {
    await debuggee.detach(target).catch(() => {});
  }
}

/**
 * One full-page screenshot of `tab` in `mode` ("stitch" or "debugger"): resolves with
 * `{blob, hash, mode}`, the mode actually used. `stillThere()` throws TabChanged when the
 * rater left the tab or page; it runs before every part.
 *
 * `browser` gives: pageCommand(tabId, message) (the content script), captureVisibleTab,
 * composeParts, debuggerGranted() and debuggee (chrome.debugger).
 */
export async function captureFullPage({ mode, tab, options = { format: "png" }, pacer, browser, stillThere = async () => {}, log = () => {} }) {
  const format = options.format === "jpeg" ? "jpeg" : "png";
  const quality = options.quality ?? 90;
  if (mode === "debugger" && (await browser.debuggerGranted?.().catch(() => false))) {
    try {
      await stillThere();
      const dataUrl = await captureWithDebugger({ tabId: tab.id, debuggee: browser.debuggee, format, quality });
      return { blob: dataUrlToBlob(dataUrl), hash: hashString(dataUrl), mode: "debugger" };
    } catch (error) {
      if (error instanceof TabChanged) throw error;
      log("debugger capture failed; stitching", error);
    }
  }
  const page = {
    begin: () => browser.pageCommand(tab.id, { type: "full-page-begin" }),
    scrollTo: (y, { hideRepeating }) => browser.pageCommand(tab.id, { type: "full-page-scroll", y, hideRepeating }),
    end: () => browser.pageCommand(tab.id, { type: "full-page-end" }).catch(() => {}),
  };
  const captureVisible = () =>
    pacer.run(async () => {
      await stillThere();
      // Parts are lossless; the whole image is encoded once, in the chosen format.
      return browser.captureVisibleTab(tab.windowId, { format: "png" });
    });
  const compose = (image) => browser.composeParts({ ...image, format, quality });
  const { blob, hash } = await captureStitched({ page, captureVisible, compose });
  return { blob, hash, mode: "stitch" };
}
