/**
 * Uploading a stopped trace, resumably and idempotently:
 *
 * 1. the trace is created with its client id (the same id again returns the same trace);
 * 2. GET /traces/{id}/ says which steps the platform already has; those are skipped;
 * 3. each remaining kept step is posted with its client id (a repeat returns the stored
 *    step), network errors and 5xx/429 answers are retried with exponential backoff;
 * 4. only when every kept step is stored is the trace finished with the step count.
 *
 * Steps the rater deleted are gone from the store (metadata and screenshot), so they
 * cannot be sent. An upload that fails part-way is simply started again.
 */

import { TrailmarkError } from "./errors.js";

export const DEFAULT_RETRY = Object.freeze({ attempts: 6, baseDelayMs: 1000, maxDelayMs: 30_000 });
const LONGEST_RETRY_AFTER_MS = 120_000;

const realSleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const nothing = () => {};

/** Runs `operation`, again after 1 s, 2 s, 4 s… (or the server's Retry-After) while the error is retryable. */
export async function withRetry(operation, { attempts, baseDelayMs, maxDelayMs, sleep = realSleep, onRetry = nothing }) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await operation();
    } catch (error) {
      if (!error?.retryable || attempt >= attempts) throw error;
      const delay = error.retryAfterMs == null
        ? Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1))
        : Math.min(LONGEST_RETRY_AFTER_MS, error.retryAfterMs); // a throttle's window can be a minute
      await onRetry({ attempt, delay, error });
      await sleep(delay);
    }
  }
}

/** The `step` part of POST /traces/{id}/steps/, as docs/trace-api.md spells it. */
export function stepPayload(step, position) {
  const payload = {
    client_id: step.id,
    position,
    url: step.url,
    title: step.title,
    captured_at: step.capturedAt,
    viewport: step.viewport,
    device_pixel_ratio: step.devicePixelRatio,
    scroll: step.scroll,
    action: step.action,
    clickables: step.clickables,
    full_page: step.fullPage === true, // the screenshot is the whole page; boxes are page-absolute
  };
  if (typeof step.html === "string") payload.html = step.html;
  return payload;
}

function screenshotName(step, blob) {
  const type = blob?.type || step.mime || "";
  const extension = type.includes("jpeg") ? "jpg" : type.includes("webp") ? "webp" : "png";
  return `${step.id}.${extension}`;
}

export async function uploadTrace({
  api,
  trace,
  steps,
  loadScreenshot,
  userAgent = "",
  retry = DEFAULT_RETRY,
  sleep = realSleep,
  onTraceCreated = nothing,
  onStepStored = nothing,
  onProgress = nothing,
  onRetry = nothing,
}) {
  const attempt = (operation) => withRetry(operation, { ...DEFAULT_RETRY, ...retry, sleep, onRetry });
  let serverId = trace.serverId ?? null;
  if (serverId === null) {
    const created = await attempt(() =>
      api.createTrace({
        client_id: trace.id,
        category: trace.category,
        batch: trace.batch ?? null,
        started_at: trace.startedAt,
        user_agent: userAgent,
      }),
    );
    serverId = created.id;
    await onTraceCreated(serverId);
  }

  const total = steps.length;
  // A second round only if finishing says steps are missing (one did not stick).
  for (let round = 1; ; round += 1) {
    const remote = await attempt(() => api.getTrace(serverId));
    const stored = new Set((remote?.steps ?? []).map((step) => step.client_id));
    let done = 0;
    await onProgress({ done, total });
    for (const [position, step] of steps.entries()) {
      if (!stored.has(step.id)) {
        if (remote?.state === "finished") {
          throw new TrailmarkError("trace_finished", "The platform already finished this trace without all of its steps.");
        }
        const screenshot = await loadScreenshot(step.id);
        if (!screenshot) {
          throw new TrailmarkError("missing_screenshot", `The screenshot of step ${position + 1} is missing from this browser.`);
        }
        await attempt(() => api.postStep(serverId, stepPayload(step, position), screenshot, screenshotName(step, screenshot)));
      }
      await onStepStored(step.id);
      done += 1;
      await onProgress({ done, total });
    }
    try {
      return { serverId, trace: await attempt(() => api.finishTrace(serverId, total)) };
    } catch (error) {
      if (error?.code !== "missing_steps" || round >= 2) throw error;
    }
  }
}

/** Uploads the stored trace `traceId`, keeping its state and progress in the store for the pages to show. */
export async function uploadStoredTrace({ store, api, traceId, loadScreenshot, userAgent, retry, sleep, now = () => new Date() }) {
  const trace = await store.trace(traceId);
  if (trace.state === "recording" || trace.state === "paused") {
    throw new TrailmarkError("still_recording", "Stop recording before uploading this trace.");
  }
  if (trace.state === "finished") return trace;
  const steps = await store.steps(traceId);
  if (!steps.length) throw new TrailmarkError("empty_trace", "This trace has no steps to upload.");

  let progress = { done: 0, total: steps.length, error: null, retrying: null };
  const report = (changes) => {
    progress = { ...progress, ...changes };
    return store.updateTrace(traceId, { upload: progress });
  };
  await store.updateTrace(traceId, { state: "uploading", upload: progress });
  try {
    await uploadTrace({
      api,
      trace,
      steps,
      loadScreenshot,
      userAgent,
      retry,
      sleep,
      onTraceCreated: (serverId) => store.updateTrace(traceId, { serverId }),
      onStepStored: (stepId) => store.markStepStored(stepId),
      onProgress: ({ done, total }) => report({ done, total, retrying: null }),
      onRetry: ({ attempt, delay, error }) => report({ retrying: { attempt, delayMs: delay, message: error.message } }),
    });
  } catch (error) {
    progress = { ...progress, retrying: null, error: { code: error?.code ?? "error", message: String(error?.message ?? error) } };
    await store.updateTrace(traceId, { state: "stopped", upload: progress });
    throw error;
  }
  return store.updateTrace(traceId, {
    state: "finished",
    finishedAt: now().toISOString(),
    upload: { ...progress, done: steps.length, retrying: null },
  });
}
