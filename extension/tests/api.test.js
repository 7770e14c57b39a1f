import assert from "node:assert/strict";
import { test } from "node:test";

import { ApiError, createApi, normalizePlatformUrl } from "../lib/api.js";

function recordingFetch(responses) {
  const calls = [];
  const fetch = async (url, init) => {
    calls.push({ url, init });
    const next = responses.shift();
    if (next instanceof Error) throw next;
    return new Response(JSON.stringify(next.body), { status: next.status ?? 200, headers: next.headers ?? {} });
  };
  return { calls, fetch };
}

test("the platform URL is cleaned up from what the rater typed", () => {
  assert.equal(normalizePlatformUrl(" https://trailmark.example.org/ "), "https://trailmark.example.org");
  assert.equal(normalizePlatformUrl("trailmark.example.org"), "https://trailmark.example.org");
  assert.equal(normalizePlatformUrl("127.0.0.1:8000"), "http://127.0.0.1:8000");
  assert.equal(normalizePlatformUrl("https://example.org/trailmark/api/v1/?x=1"), "https://example.org/trailmark");
  assert.throws(() => normalizePlatformUrl(""), { code: "invalid_url" });
  assert.throws(() => normalizePlatformUrl("ftp://example.org"), { code: "invalid_url" });
});

test("calls carry the token, no cookies, and go under /api/v1/", async () => {
  const { calls, fetch } = recordingFetch([{ body: { id: 3, username: "rater", role: "rater" } }]);
  const api = createApi({ baseUrl: "https://t.example", token: "k3y", fetch });

  assert.deepEqual(await api.me(), { id: 3, username: "rater", role: "rater" });
  assert.equal(calls[0].url, "https://t.example/api/v1/me/");
  assert.equal(calls[0].init.headers.Authorization, "Token k3y");
  assert.equal(calls[0].init.credentials, "omit");
});

test("lists follow the pages; only eligible batches that take traces are offered", async () => {
  const { calls, fetch } = recordingFetch([
    { body: { count: 4, next: "http://internal:8000/api/v1/batches/available/?page=2&page_size=500", results: [
      { id: 1, kind: "trace_qa", takes_traces: true, eligible: true, name: "Traces A" },
      { id: 2, kind: "single_screen_qa", takes_traces: false, eligible: true, name: "Screens" },
      { id: 4, kind: "my_trace_kind", takes_traces: true, eligible: true, name: "Traces C" },
    ] } },
    { body: { count: 4, next: null, results: [{ id: 3, kind: "trace_qa", takes_traces: true, eligible: false, name: "Traces B", reason: "Needs a qualification." }] } },
  ]);
  const api = createApi({ baseUrl: "https://t.example", token: "k", fetch });

  const batches = await api.traceBatches();

  assert.deepEqual(batches.map((batch) => batch.id), [1, 4]);
  assert.equal(calls[1].url, "https://t.example/api/v1/batches/available/?page=2&page_size=500");
});

test("an error body becomes an ApiError with the platform's code and message", async () => {
  const { fetch } = recordingFetch([
    { status: 401, body: { error: { code: "authentication_failed", message: "Invalid token.", fields: {} } } },
  ]);
  const api = createApi({ baseUrl: "https://t.example", token: "bad", fetch });

  const error = await api.me().catch((caught) => caught);

  assert.ok(error instanceof ApiError);
  assert.equal(error.status, 401);
  assert.equal(error.code, "authentication_failed");
  assert.equal(error.message, "Invalid token.");
  assert.equal(error.retryable, false);
});

test("network failures and 5xx are retryable, 4xx are not", async () => {
  const { fetch } = recordingFetch([new TypeError("fetch failed"), { status: 502, body: {} }, { status: 409, body: {} }]);
  const api = createApi({ baseUrl: "https://t.example", token: "k", fetch });

  const network = await api.getTrace(1).catch((caught) => caught);
  const gateway = await api.getTrace(1).catch((caught) => caught);
  const conflict = await api.getTrace(1).catch((caught) => caught);

  assert.deepEqual([network.status, network.retryable], [0, true]);
  assert.deepEqual([gateway.status, gateway.retryable], [502, true]);
  assert.deepEqual([conflict.status, conflict.retryable], [409, false]);
});

test("a step is posted as multipart with the step JSON and the screenshot; 200 means it was already there", async () => {
  const { calls, fetch } = recordingFetch([{ status: 200, body: { id: 9, client_id: "s1", position: 0 } }]);
  const api = createApi({ baseUrl: "https://t.example", token: "k", fetch });

  const result = await api.postStep(4, { client_id: "s1", position: 0 }, new Blob(["png"], { type: "image/png" }), "s1.png");

  assert.deepEqual(result, { created: false, step: { id: 9, client_id: "s1", position: 0 } });
  const form = calls[0].init.body;
  assert.equal(calls[0].url, "https://t.example/api/v1/traces/4/steps/");
  assert.deepEqual(JSON.parse(form.get("step")), { client_id: "s1", position: 0 });
  assert.equal(form.get("screenshot").name, "s1.png");
  assert.equal(calls[0].init.headers["Content-Type"], undefined, "fetch sets the multipart boundary itself");
});
