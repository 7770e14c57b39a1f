import assert from "node:assert/strict";
import { test } from "node:test";

import { createPacer, isRateLimitError } from "../lib/pacing.js";
import { fakeClock } from "./fakes.js";

const RATE_LIMITED = new Error(
  "This request exceeds the MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND quota.",
);

test("captures asked for at once run one by one, never two within 500 ms", async () => {
  const clock = fakeClock();
  const pacer = createPacer({ now: clock.now, sleep: clock.sleep });
  const startedAt = [];
  const capture = async () => {
    startedAt.push(clock.now());
    return startedAt.length;
  };

  const results = await Promise.all(Array.from({ length: 6 }, () => pacer.run(capture)));

  assert.deepEqual(results, [1, 2, 3, 4, 5, 6]);
  for (let index = 1; index < startedAt.length; index += 1) {
    assert.ok(startedAt[index] - startedAt[index - 1] >= 500, `captures ${index} and ${index + 1} were too close`);
  }
  // Two per rolling second at most, Chrome's limit.
  for (const start of startedAt) {
    assert.ok(startedAt.filter((time) => time >= start && time < start + 1000).length <= 2);
  }
});

test("a capture long after the previous one does not wait", async () => {
  const clock = fakeClock();
  const pacer = createPacer({ now: clock.now, sleep: clock.sleep });
  await pacer.run(async () => "first");
  await clock.sleep(5000);
  clock.sleeps.length = 0;

  await pacer.run(async () => "second");

  assert.deepEqual(clock.sleeps, []);
});

test("a capture refused for the rate is tried again after a pause and succeeds", async () => {
  const clock = fakeClock();
  const pacer = createPacer({ now: clock.now, sleep: clock.sleep, retryDelayMs: 1000 });
  const calls = [];
  const capture = async () => {
    calls.push(clock.now());
    if (calls.length === 1) throw RATE_LIMITED;
    return "data:image/png;base64,AAAA";
  };

  const result = await pacer.run(capture);

  assert.equal(result, "data:image/png;base64,AAAA");
  assert.equal(calls.length, 2);
  assert.ok(calls[1] - calls[0] >= 1000, "the retry waited for the one-second window to pass");
});

test("other capture errors are not retried, and the queue goes on after them", async () => {
  const clock = fakeClock();
  const pacer = createPacer({ now: clock.now, sleep: clock.sleep });
  let calls = 0;
  const broken = async () => {
    calls += 1;
    throw new Error("Cannot access contents of the page.");
  };

  await assert.rejects(pacer.run(broken), /Cannot access/);
  assert.equal(calls, 1);
  assert.equal(await pacer.run(async () => "next"), "next");
});

test("a capture that keeps hitting the rate limit gives up after the last attempt", async () => {
  const clock = fakeClock();
  const pacer = createPacer({ now: clock.now, sleep: clock.sleep, maxAttempts: 3 });
  let calls = 0;

  await assert.rejects(
    pacer.run(async () => {
      calls += 1;
      throw RATE_LIMITED;
    }),
    /MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND/,
  );
  assert.equal(calls, 3);
});

test("the rate-limit error is recognised from Chrome's message", () => {
  assert.equal(isRateLimitError(RATE_LIMITED), true);
  assert.equal(isRateLimitError("MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND"), true);
  assert.equal(isRateLimitError(new Error("No window with id: 3.")), false);
});
