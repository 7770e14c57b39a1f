/**
 * Everything the extension remembers, in chrome.storage.local (the service worker can be
 * stopped at any moment, so nothing lives only in its memory) and screenshot blobs in
 * IndexedDB (lib/screens.js).
 *
 * Keys: `settings`, `session` (platform URL, token, account), `catalog` (categories,
 * trace batches, block list), `recording` (status, current trace, the last step's dedup
 * key), `traceIds` (oldest first), `trace:<client id>` and `step:<client id>`.
 *
 * Only the service worker writes. Each write below is one read-modify-write under a
 * per-worker queue, so a capture landing while the rater presses Stop cannot slip into a
 * stopped trace.
 */

import { isDuplicate } from "./dedup.js";
import { TrailmarkError } from "./errors.js";

export const DEFAULT_SETTINGS = Object.freeze({
  captureHtml: false,
  imageFormat: "png",
  jpegQuality: 90,
  skipPlatformPages: true,
});

const IDLE = Object.freeze({ status: "idle", traceId: null, lastKey: null });
const EMPTY_CATALOG = Object.freeze({ categories: [], batches: [], blocklist: { hosts: [], patterns: [] } });

/** Recording transitions: which statuses each may leave, where it goes, the trace's state after. */
const TRANSITIONS = {
  pause: { from: ["recording"], to: "paused", traceState: "paused" },
  resume: { from: ["paused"], to: "recording", traceState: "recording" },
  stop: { from: ["recording", "paused"], to: "idle", traceState: "stopped" },
};

const traceKey = (id) => `trace:${id}`;
const stepKeyOf = (id) => `step:${id}`;

export function createStore({ area, screens }) {
  let queue = Promise.resolve();

  function exclusive(operation) {
    const result = queue.then(operation);
    queue = result.catch(() => {});
    return result;
  }

  async function read(key, fallback) {
    const found = await area.get(key);
    return found[key] ?? fallback;
  }

  async function readRecording() {
    return { ...IDLE, ...(await read("recording", {})) };
  }

  async function readTrace(id) {
    const trace = await read(traceKey(id), null);
    if (!trace) throw new TrailmarkError("unknown_trace", `There is no trace ${id} in this browser.`);
    return trace;
  }

  async function readSteps(trace) {
    if (!trace.stepIds.length) return [];
    const found = await area.get(trace.stepIds.map(stepKeyOf));
    return trace.stepIds.map((id) => found[stepKeyOf(id)]).filter(Boolean);
  }

  return {
    exclusive,

    async settings() {
      return { ...DEFAULT_SETTINGS, ...(await read("settings", {})) };
    },

    saveSettings(changes) {
      return exclusive(async () => {
        const settings = { ...DEFAULT_SETTINGS, ...(await read("settings", {})), ...changes };
        await area.set({ settings });
        return settings;
      });
    },

    session: () => read("session", null),

    saveSession(session) {
      return exclusive(() => (session ? area.set({ session }) : area.remove("session")));
    },

    async catalog() {
      return { ...EMPTY_CATALOG, ...(await read("catalog", {})) };
    },

    saveCatalog(changes) {
      return exclusive(async () => {
        const catalog = { ...EMPTY_CATALOG, ...(await read("catalog", {})), ...changes };
        await area.set({ catalog });
        return catalog;
      });
    },

    clearCatalog() {
      return exclusive(() => area.remove("catalog"));
    },

    recording: readRecording,

    trace: readTrace,

    async traces() {
      const ids = await read("traceIds", []);
      if (!ids.length) return [];
      const found = await area.get(ids.map(traceKey));
      return ids.map((id) => found[traceKey(id)]).filter(Boolean).reverse();
    },

    async steps(traceId) {
      return readSteps(await readTrace(traceId));
    },

    /** Begins a new trace and records into it. */
    startTrace(trace) {
      return exclusive(async () => {
        const recording = await readRecording();
        if (recording.status !== "idle") {
          throw new TrailmarkError("already_recording", "A trace is already being recorded: stop it first.");
        }
        const ids = await read("traceIds", []);
        const stored = { ...trace, state: "recording", stepIds: [], serverId: null, upload: null };
        const next = { status: "recording", traceId: trace.id, lastKey: null };
        await area.set({ [traceKey(trace.id)]: stored, traceIds: [...ids, trace.id], recording: next });
        return { recording: next, trace: stored };
      });
    },

    /** `pause`, `resume` or `stop`; refuses the ones the current status does not allow. */
    transition(name, at = new Date().toISOString()) {
      const rule = TRANSITIONS[name];
      return exclusive(async () => {
        const recording = await readRecording();
        if (!rule.from.includes(recording.status)) {
          throw new TrailmarkError("invalid_state", `Cannot ${name} while ${recording.status}.`);
        }
        const trace = await readTrace(recording.traceId);
        const changes = { state: rule.traceState };
        if (name === "stop") changes.stoppedAt = at;
        const next = rule.to === "idle" ? { ...IDLE } : { ...recording, status: rule.to };
        await area.set({ recording: next, [traceKey(trace.id)]: { ...trace, ...changes } });
        return { recording: next, trace: { ...trace, ...changes } };
      });
    },

    /**
     * Adds a captured step to the trace being recorded, unless recording stopped or paused
     * since the capture began, or it shows the same thing as the previous step (`key`).
     */
    appendStep(step, blob, { key }) {
      return exclusive(async () => {
        const recording = await readRecording();
        if (recording.status !== "recording" || recording.traceId !== step.traceId) {
          return { added: false, reason: "not recording" };
        }
        if (isDuplicate(recording.lastKey, key)) return { added: false, reason: "duplicate" };
        const trace = await readTrace(step.traceId);
        await screens.put(step.id, blob);
        await area.set({
          [stepKeyOf(step.id)]: step,
          [traceKey(trace.id)]: { ...trace, stepIds: [...trace.stepIds, step.id] },
          recording: { ...recording, lastKey: key },
        });
        return { added: true, position: trace.stepIds.length };
      });
    },

    updateTrace(id, changes) {
      return exclusive(async () => {
        const trace = { ...(await readTrace(id)), ...changes };
        await area.set({ [traceKey(id)]: trace });
        return trace;
      });
    },

    markStepStored(stepId) {
      return exclusive(async () => {
        const step = await read(stepKeyOf(stepId), null);
        if (step && !step.stored) await area.set({ [stepKeyOf(stepId)]: { ...step, stored: true } });
      });
    },

    /** Deletes a step and its screenshot for good, so it can never be uploaded. */
    deleteStep(traceId, stepId) {
      return exclusive(async () => {
        const trace = await readTrace(traceId);
        if (trace.serverId || trace.state === "uploading") {
          throw new TrailmarkError(
            "upload_started",
            "This trace is already on the platform, so its steps can no longer be deleted here.",
          );
        }
        if (!trace.stepIds.includes(stepId)) throw new TrailmarkError("unknown_step", `There is no step ${stepId}.`);
        await area.set({ [traceKey(traceId)]: { ...trace, stepIds: trace.stepIds.filter((id) => id !== stepId) } });
        await area.remove(stepKeyOf(stepId));
        await screens.delete(stepId);
      });
    },

    deleteTrace(traceId) {
      return exclusive(async () => {
        const recording = await readRecording();
        if (recording.traceId === traceId) {
          throw new TrailmarkError("still_recording", "Stop recording this trace before deleting it.");
        }
        const trace = await readTrace(traceId);
        if (trace.state === "uploading") throw new TrailmarkError("uploading", "The trace is being uploaded.");
        const ids = await read("traceIds", []);
        await area.set({ traceIds: ids.filter((id) => id !== traceId) });
        await area.remove([traceKey(traceId), ...trace.stepIds.map(stepKeyOf)]);
        for (const stepId of trace.stepIds) await screens.delete(stepId);
      });
    },
  };
}
