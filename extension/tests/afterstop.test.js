import assert from "node:assert/strict";
import { test } from "node:test";

import { stepLines, taskUrl, traceToReview, uploadStatus } from "../lib/afterstop.js";

const idle = (latestTrace) => ({ signedIn: true, recording: { status: "idle" }, latestTrace });
const stopped = { id: "t1", state: "stopped", stepCount: 3, batch: 7, upload: null };

test("a stopped trace is offered for review and upload instead of the idle view", () => {
  assert.equal(traceToReview(idle(stopped)), stopped);
  assert.equal(traceToReview(idle({ ...stopped, state: "uploading" })).id, "t1");
});

test("no review step while recording, signed out, after dismissing, or for an old finished trace", () => {
  assert.equal(traceToReview({ ...idle(stopped), recording: { status: "recording" } }), null);
  assert.equal(traceToReview({ ...idle(stopped), signedIn: false }), null);
  assert.equal(traceToReview(idle(stopped), { dismissed: "t1" }), null);
  assert.equal(traceToReview(idle({ ...stopped, state: "finished" })), null);
  assert.equal(traceToReview(idle(null)), null);
});

test("a trace uploaded while the popup watched stays on screen with the way back", () => {
  const finished = { ...stopped, state: "finished" };
  assert.equal(traceToReview(idle(finished), { justUploaded: "t1" }), finished);
  assert.equal(taskUrl("https://tm.example/", finished), "https://tm.example/#batch-7");
  assert.equal(taskUrl("https://tm.example", { ...finished, batch: null }), "https://tm.example/");
  assert.equal(taskUrl(null, finished), null);
});

test("the steps read as numbered actions with their page", () => {
  const lines = stepLines([
    { action: { type: "navigate" }, title: "Kettles", url: "https://shop.example/" },
    { action: { type: "click", target: { text: "Next kettle" } }, title: "", url: "https://shop.example/2" },
  ]);
  assert.deepEqual(lines, ["1. page load — Kettles", "2. click “Next kettle” — https://shop.example/2"]);
});

test("the upload status says how far it got and why it stopped", () => {
  assert.equal(uploadStatus(stopped), "3 steps recorded. Check them, then upload.");
  assert.equal(uploadStatus({ ...stopped, state: "uploading", upload: { done: 1, total: 3 } }), "Uploading: 1 of 3 steps stored…");
  assert.equal(
    uploadStatus({ ...stopped, upload: { done: 1, total: 3, error: { message: "The platform did not answer." } } }),
    "Upload stopped: The platform did not answer.",
  );
  assert.equal(uploadStatus({ ...stopped, state: "finished" }), "Uploaded: 3 steps stored.");
  assert.equal(uploadStatus(null), "");
});
