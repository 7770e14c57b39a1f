import assert from "node:assert/strict";
import { test } from "node:test";

import { hashString, isDuplicate, stepKey } from "../lib/dedup.js";

const screenshot = `data:image/png;base64,${"iVBORw0KGgo".repeat(5000)}`;

test("equal screenshots hash equal; one changed character changes the hash", () => {
  assert.equal(hashString(screenshot), hashString(`${screenshot}`));
  assert.notEqual(hashString(screenshot), hashString(`${screenshot.slice(0, -1)}A`));
  assert.match(hashString(screenshot), /^[0-9a-f]{16}$/);
});

test("a step with the same URL, scroll and screenshot as the previous one is a duplicate", () => {
  const previous = stepKey({ url: "https://shop.example/", scroll: { x: 0, y: 640 }, screenshotHash: hashString(screenshot) });
  const same = stepKey({ url: "https://shop.example/", scroll: { x: 0, y: 640.2 }, screenshotHash: hashString(screenshot) });
  assert.equal(isDuplicate(previous, same), true);
});

test("a different URL, scroll position or screenshot is not a duplicate", () => {
  const hash = hashString(screenshot);
  const previous = stepKey({ url: "https://shop.example/", scroll: { x: 0, y: 0 }, screenshotHash: hash });
  assert.equal(isDuplicate(previous, stepKey({ url: "https://shop.example/?page=2", scroll: { x: 0, y: 0 }, screenshotHash: hash })), false);
  assert.equal(isDuplicate(previous, stepKey({ url: "https://shop.example/", scroll: { x: 0, y: 800 }, screenshotHash: hash })), false);
  assert.equal(isDuplicate(previous, stepKey({ url: "https://shop.example/", scroll: { x: 0, y: 0 }, screenshotHash: hashString(`${screenshot}x`) })), false);
});

test("the first step of a trace is never a duplicate", () => {
  assert.equal(isDuplicate(null, stepKey({ url: "https://a.example/", scroll: null, screenshotHash: "0" })), false);
});
