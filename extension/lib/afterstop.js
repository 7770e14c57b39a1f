/**
 * What the popup shows once a recording stops: the trace's steps to check, an Upload
 * button, and after the upload a way back to the platform to write the questions. Pure
 * functions of the worker's state, so that node --test can check them.
 */
import { describeAction } from "./messages.js";

/**
 * The trace the popup should offer to review and upload, or null for the usual "start a
 * recording" view: the newest trace when it is stopped or uploading (or failed midway),
 * or when it finished while this popup watched (`justUploaded`). `dismissed` is a trace
 * the rater chose to leave for later.
 */
export function traceToReview(state, { dismissed = null, justUploaded = null } = {}) {
  if (!state?.signedIn || state.recording?.status !== "idle") return null;
  const trace = state.latestTrace;
  if (!trace || trace.id === dismissed) return null;
  if (trace.state === "stopped" || trace.state === "uploading") return trace;
  if (trace.state === "finished" && trace.id === justUploaded) return trace;
  return null;
}

/** One line per step, in order: "3. click “Next kettle” — Kettles, page 2". */
export function stepLines(steps) {
  return steps.map((step, index) => {
    const where = step.title || step.url || "";
    return `${index + 1}. ${describeAction(step.action)}${where ? ` — ${where}` : ""}`;
  });
}

/** Where the rater writes the questions: their work page on the platform, at the trace's batch. */
export function taskUrl(platformUrl, trace) {
  if (!platformUrl) return null;
  const base = platformUrl.replace(/\/+$/, "");
  return trace?.batch ? `${base}/#batch-${trace.batch}` : `${base}/`;
}

/** A short sentence on where the upload stands. */
export function uploadStatus(trace) {
  if (!trace) return "";
  const total = trace.upload?.total ?? trace.stepCount;
  if (trace.state === "finished") return `Uploaded: ${trace.stepCount} steps stored.`;
  if (trace.upload?.error) return `Upload stopped: ${trace.upload.error.message}`;
  if (trace.state === "uploading") return `Uploading: ${trace.upload?.done ?? 0} of ${total} steps stored…`;
  return `${trace.stepCount} step${trace.stepCount === 1 ? "" : "s"} recorded. Check them, then upload.`;
}
