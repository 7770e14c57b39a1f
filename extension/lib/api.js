/**
 * The platform's trace API (docs/trace-api.md), one method per call. `fetch` is passed in
 * so tests can stand in for the network. Every failure is an ApiError: `status` 0 means
 * the platform was not reached; `retryable` says whether trying again can help.
 */

import { TrailmarkError } from "./errors.js";

export class ApiError extends TrailmarkError {
  constructor(message, { status = 0, code = "network", fields = {}, retryAfterMs = null } = {}) {
    super(code, message);
    this.name = "ApiError";
    this.status = status;
    this.fields = fields;
    this.retryAfterMs = retryAfterMs;
  }

  get retryable() {
    return this.status === 0 || this.status === 408 || this.status === 429 || this.status >= 500;
  }
}

const LOCAL_HOSTS = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?(\/|$)/i;

/**
 * The platform's base URL from what the rater typed: scheme added when missing (http for
 * this machine, https otherwise), no trailing slash, no query, and no `/api/v1` if they
 * pasted the API root.
 */
export function normalizePlatformUrl(input) {
  let text = String(input ?? "").trim();
  if (!text) throw new TrailmarkError("invalid_url", "Enter the platform's address, e.g. https://trailmark.example.org.");
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) text = `${LOCAL_HOSTS.test(text) ? "http" : "https"}://${text}`;
  let url;
  try {
    url = new URL(text);
  } catch {
    throw new TrailmarkError("invalid_url", `“${input}” is not a web address.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TrailmarkError("invalid_url", "The platform's address must start with https:// (or http://).");
  }
  const path = url.pathname.replace(/\/+$/, "").replace(/\/api\/v1$/, "");
  return `${url.origin}${path}`;
}

function retryAfterMs(header) {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

export function createApi({ baseUrl, token, fetch: fetchImpl = globalThis.fetch, timeoutMs = 30_000 }) {
  const root = `${baseUrl}/api/v1/`;

  async function request(path, { method = "GET", json, form, timeout = timeoutMs } = {}) {
    const headers = { Authorization: `Token ${token}`, Accept: "application/json" };
    let body;
    if (json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(json);
    } else if (form) {
      body = form;
    }
    let response;
    try {
      response = await fetchImpl(root + path, {
        method,
        headers,
        body,
        credentials: "omit", // the token is the identity; a session cookie would bring CSRF checks
        signal: typeof AbortSignal.timeout === "function" ? AbortSignal.timeout(timeout) : undefined,
      });
    } catch (error) {
      throw new ApiError(`Could not reach ${baseUrl}: ${error?.message ?? error}`);
    }
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!response.ok) {
      const error = data?.error ?? {};
      throw new ApiError(error.message || `The platform answered HTTP ${response.status}.`, {
        status: response.status,
        code: error.code || `http_${response.status}`,
        fields: error.fields || {},
        retryAfterMs: retryAfterMs(response.headers?.get?.("Retry-After")),
      });
    }
    return { status: response.status, data };
  }

  /** Every item of a paginated list (or a plain list), following `next` on our own base URL. */
  async function listAll(path) {
    const items = [];
    let query = "?page_size=500";
    for (let page = 0; page < 50 && query !== null; page += 1) {
      const { data } = await request(path + query);
      if (Array.isArray(data)) return data;
      items.push(...(data?.results ?? []));
      query = data?.next ? new URL(data.next, root).search : null;
    }
    return items;
  }

  return {
    baseUrl,
    me: async () => (await request("me/")).data,
    categories: () => listAll("categories/"),
    /** The open batches fed by recorded traces that this rater may record for (the
     * server says which kinds take traces: `takes_traces`). */
    traceBatches: async () =>
      (await listAll("batches/available/")).filter((batch) => batch.takes_traces === true && batch.eligible === true),
    blocklist: async () => {
      const { data } = await request("blocklist/");
      return { hosts: data?.hosts ?? [], patterns: data?.patterns ?? [] };
    },
    createTrace: async (payload) => (await request("traces/", { method: "POST", json: payload })).data,
    getTrace: async (id) => (await request(`traces/${id}/`)).data,
    /** 201 when the step is new, 200 when the trace already had this client_id: both are fine. */
    postStep: async (traceId, step, screenshot, filename) => {
      const form = new FormData();
      form.append("step", JSON.stringify(step));
      form.append("screenshot", screenshot, filename);
      const { status, data } = await request(`traces/${traceId}/steps/`, { method: "POST", form, timeout: 120_000 });
      return { created: status === 201, step: data };
    },
    finishTrace: async (id, stepCount) =>
      (await request(`traces/${id}/finish/`, { method: "POST", json: { step_count: stepCount } })).data,
  };
}
