import assert from "node:assert/strict";
import { test } from "node:test";

import { blockReason, isCapturableUrl } from "../lib/blocklist.js";

const rules = {
  blocklist: { hosts: ["mail.example.com", "BANK.example"], patterns: ["/account", "/checkout/pay"] },
  platformUrl: "https://trailmark.example.org",
  skipPlatformPages: true,
};

test("a blocked host and its subdomains are refused, not hosts that merely end the same way", () => {
  assert.match(blockReason("https://mail.example.com/inbox", rules), /blocked host/);
  assert.match(blockReason("https://eu.mail.example.com/", rules), /blocked host/);
  assert.match(blockReason("https://www.bank.example/", rules), /blocked host/);
  assert.equal(blockReason("https://gmail.example.com/", rules), null);
  assert.equal(blockReason("https://example.com/", rules), null);
});

test("a URL whose path contains a pattern is refused; the query string does not count", () => {
  assert.match(blockReason("https://shop.example/account/orders", rules), /blocked path/);
  assert.match(blockReason("https://shop.example/my/checkout/pay?x=1", rules), /blocked path/);
  assert.equal(blockReason("https://shop.example/search?q=/account", rules), null);
});

test("the platform's own pages are skipped unless the rater turns that off", () => {
  assert.equal(blockReason("https://trailmark.example.org/profile/", rules), "a Trailmark page");
  assert.equal(blockReason("https://trailmark.example.org/profile/", { ...rules, skipPlatformPages: false }), null);
});

test("only http and https pages are captured", () => {
  assert.equal(isCapturableUrl("https://shop.example/"), true);
  assert.equal(isCapturableUrl("chrome://settings/"), false);
  assert.equal(isCapturableUrl("chrome-extension://abc/review.html"), false);
  assert.equal(blockReason("file:///etc/passwd", rules), "not a web page");
});
