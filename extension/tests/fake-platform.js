/**
 * The platform's side of docs/trace-api.md, in memory, behind a fetch function — with
 * faults to inject: a network error, an HTTP error, or an answer lost after the platform
 * already stored the request.
 */

const json = (status, body) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
const refusal = (status, code, message, fields = {}) => json(status, { error: { code, message, fields } });

export function fakePlatform({ token = "secret-token", base = "https://trailmark.test" } = {}) {
  const traces = new Map();
  const calls = [];
  const faults = [];
  let nextId = 41;

  const platform = {
    base,
    traces,
    calls,
    /** The next `times` requests matching `route` (e.g. "POST steps") fail as `kind`. */
    fail(route, { times = 1, kind = "network", status = 500 } = {}) {
      faults.push({ route, times, kind, status });
    },
    clearFaults() {
      faults.length = 0;
    },
    /** A trace the platform already has, with steps already stored. */
    seed({ clientId, storedStepIds = [] }) {
      const trace = { id: nextId++, client_id: clientId, category: "shopping", batch: null, state: "uploading", steps: [] };
      storedStepIds.forEach((id, position) => trace.steps.push({ id: position + 100, client_id: id, position }));
      traces.set(trace.id, trace);
      return trace;
    },
    stepPosts: () => calls.filter((call) => call.route === "POST steps"),
    fetch,
  };

  function routeOf(method, path) {
    if (path === "/api/v1/traces/") return `${method} traces`;
    if (/^\/api\/v1\/traces\/\d+\/$/.test(path)) return `${method} trace`;
    if (/^\/api\/v1\/traces\/\d+\/steps\/$/.test(path)) return `${method} steps`;
    if (/^\/api\/v1\/traces\/\d+\/finish\/$/.test(path)) return `${method} finish`;
    return `${method} ${path}`;
  }

  async function fetch(url, init = {}) {
    const { pathname } = new URL(url);
    const method = init.method ?? "GET";
    const route = routeOf(method, pathname);
    const call = { route, url, init };
    calls.push(call);
    const fault = faults.find((item) => item.route === route && item.times > 0);
    if (fault) {
      fault.times -= 1;
      if (fault.kind === "network") throw new TypeError("fetch failed");
      if (fault.kind === "status") return refusal(fault.status, fault.status >= 500 ? "server_error" : "invalid", "Injected failure.");
    }
    if (init.headers?.Authorization !== `Token ${token}`) return refusal(401, "not_authenticated", "Invalid token.");
    const response = answer(route, pathname, init, call);
    if (fault?.kind === "lost") throw new TypeError("network connection lost"); // stored, but the answer never came
    return response;
  }

  function answer(route, pathname, init, call) {
    const traceId = Number(pathname.split("/")[4]);
    const trace = traces.get(traceId);
    switch (route) {
      case "POST traces": {
        const body = JSON.parse(init.body);
        call.body = body;
        const existing = [...traces.values()].find((item) => item.client_id === body.client_id);
        if (existing) return json(200, existing);
        const created = { id: nextId++, client_id: body.client_id, category: body.category, batch: body.batch, state: "uploading", steps: [], body };
        traces.set(created.id, created);
        return json(201, created);
      }
      case "GET trace":
        return trace ? json(200, trace) : refusal(404, "not_found", "Not found.");
      case "POST steps": {
        if (!trace) return refusal(404, "not_found", "Not found.");
        const step = JSON.parse(init.body.get("step"));
        const screenshot = init.body.get("screenshot");
        call.step = step;
        call.screenshot = screenshot;
        if (trace.state === "finished") return refusal(409, "trace_finished", "The trace is finished.");
        const missing = ["client_id", "position", "url", "title", "captured_at", "viewport", "device_pixel_ratio", "scroll", "action", "clickables"]
          .filter((field) => !(field in step));
        if (missing.length) return refusal(400, "invalid", "Missing fields.", Object.fromEntries(missing.map((field) => [`step.${field}`, ["This field is required."]])));
        if (!(screenshot instanceof Blob) || screenshot.size === 0) return refusal(400, "empty_image", "The screenshot is empty.");
        const existing = trace.steps.find((item) => item.client_id === step.client_id);
        if (existing) return json(200, existing);
        const stored = { id: 1000 + trace.steps.length, client_id: step.client_id, position: step.position, screen: 7, step, screenshotName: screenshot.name, screenshotSize: screenshot.size };
        trace.steps.push(stored);
        return json(201, stored);
      }
      case "POST finish": {
        if (!trace) return refusal(404, "not_found", "Not found.");
        const { step_count: count } = JSON.parse(init.body);
        if (count !== trace.steps.length) {
          return refusal(409, "missing_steps", `The trace has ${trace.steps.length} steps stored, not ${count}.`);
        }
        trace.state = "finished";
        return json(200, trace);
      }
      default:
        return refusal(404, "not_found", "Not found.");
    }
  }

  return platform;
}
