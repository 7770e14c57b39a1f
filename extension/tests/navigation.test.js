import assert from "node:assert/strict";
import { test } from "node:test";

import { emptyHistory, recordNavigation } from "../lib/navigation.js";

function walk(events) {
  let history = emptyHistory();
  return events.map(([url, qualifiers = [], transitionType = "link"]) => {
    const result = recordNavigation(history, { url, qualifiers, transitionType });
    history = result.history;
    return result.type;
  });
}

test("history navigations are told apart: back, back, forward", () => {
  assert.deepEqual(
    walk([["/a"], ["/b"], ["/c"], ["/b", ["forward_back"]], ["/a", ["forward_back"]], ["/b", ["forward_back"]]]),
    ["navigate", "navigate", "navigate", "back", "back", "forward"],
  );
});

test("a new page after going back drops the forward entries", () => {
  assert.deepEqual(
    walk([["/a"], ["/b"], ["/a", ["forward_back"]], ["/c"], ["/b", ["forward_back"]]]),
    ["navigate", "navigate", "back", "navigate", "back"],
  );
});

test("a reload is a navigate and does not add an entry", () => {
  assert.deepEqual(walk([["/a"], ["/b"], ["/b", [], "reload"], ["/a", ["forward_back"]]]), ["navigate", "navigate", "navigate", "back"]);
});

test("history from before the tab was followed counts as back", () => {
  assert.deepEqual(walk([["/b"], ["/z", ["forward_back"]]]), ["navigate", "back"]);
});
