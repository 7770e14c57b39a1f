/** The toolbar popup (also works opened as a tab, which is how tests drive it). */
import { stepLines, taskUrl, traceToReview, uploadStatus } from "./lib/afterstop.js";
import { send } from "./lib/messages.js";

const $ = (testId) => document.querySelector(`[data-testid="${testId}"]`);
let state = null;
let dismissed = null; // a stopped trace the rater left for later
let justUploaded = null; // the trace uploaded while this popup was open
let shownSteps = null; // the trace whose steps are listed

function showError(error) {
  const box = $("error");
  box.textContent = error ? error.message ?? String(error) : "";
  box.hidden = !error;
}

function fillSelect(select, items, { value, label, empty }) {
  const chosen = select.value;
  select.replaceChildren();
  if (empty) select.append(new Option(empty, ""));
  for (const item of items) select.append(new Option(label(item), String(value(item))));
  if ([...select.options].some((option) => option.value === chosen)) select.value = chosen;
}

function render(next) {
  state = next;
  const { status } = state.recording;
  $("state").textContent = status;
  $("state").dataset.state = status;
  document.getElementById("signed-out").hidden = state.signedIn;
  document.getElementById("signed-in").hidden = !state.signedIn;
  $("sign-out").hidden = !state.signedIn || status !== "idle";
  if (!state.signedIn) return;

  $("signed-in-as").textContent = state.account?.username ?? "?";
  $("platform").textContent = state.platformUrl;
  const reviewing = traceToReview(state, { dismissed, justUploaded });
  renderAfterStop(reviewing);
  document.getElementById("setup").hidden = status !== "idle" || Boolean(reviewing);
  document.getElementById("controls").hidden = status === "idle";
  fillSelect($("category"), state.categories, { value: (c) => c.slug, label: (c) => c.name, empty: state.categories.length ? "" : "No categories" });
  fillSelect($("batch"), state.batches, { value: (b) => b.id, label: (b) => b.name, empty: "No batch" });
  $("start").disabled = !state.categories.length;

  const { categoryName, batchName, stepCount, fullPage } = state.recording;
  document.getElementById("recording-what").textContent =
    `${status === "paused" ? "Paused" : "Recording"} “${categoryName ?? ""}”${batchName ? ` for ${batchName}` : ""}${fullPage ? " (whole pages)" : ""}`;
  $("step-count").textContent = String(stepCount);
  $("pause").hidden = status !== "recording";
  $("resume").hidden = status !== "paused";

  const catalogError = $("catalog-error");
  catalogError.textContent = state.catalogError ? `Could not refresh the lists: ${state.catalogError}` : "";
  catalogError.hidden = !state.catalogError;
}

// After Stop: the recorded steps, Upload, and once uploaded the way back to the task.
function renderAfterStop(trace) {
  document.getElementById("after-stop").hidden = !trace;
  if (!trace) return;
  $("after-stop-status").textContent = uploadStatus(trace);
  $("after-stop-status").className = trace.upload?.error && trace.state !== "finished" ? "error" : "";
  const finished = trace.state === "finished";
  $("upload-now").hidden = finished;
  $("upload-now").disabled = trace.state === "uploading" || trace.stepCount === 0;
  $("upload-now").textContent = trace.upload?.error ? "Upload again" : "Upload";
  $("review-full").hidden = finished;
  $("after-upload").hidden = !finished;
  $("task-link").href = taskUrl(state.platformUrl, trace) ?? "#";
  $("record-another").textContent = finished ? "Record another trace" : "Upload later";
  if (shownSteps !== `${trace.id}:${trace.stepCount}`) {
    shownSteps = `${trace.id}:${trace.stepCount}`;
    send("get-trace", { traceId: trace.id }).then(({ steps }) => {
      $("recorded-steps").replaceChildren(...stepLines(steps).map((line) => Object.assign(document.createElement("li"), { textContent: line })));
    }, showError);
  }
}

async function act(type, payload, button) {
  showError(null);
  if (button) button.disabled = true;
  try {
    render(await send(type, payload));
  } catch (error) {
    showError(error);
  } finally {
    if (button) button.disabled = false;
  }
}

$("sign-in-form").addEventListener("submit", (event) => {
  event.preventDefault();
  act("sign-in", { platformUrl: $("platform-url").value, token: $("token").value }, $("sign-in")).then(() => {
    if (state?.signedIn) $("token").value = "";
  });
});
$("start").addEventListener("click", () => {
  const batch = state?.batches.find((item) => String(item.id) === $("batch").value);
  // A batch that captures with chrome.debugger needs the optional permission, which can
  // only be asked for on a click; refused, its pages are stitched instead.
  const asked = batch?.fullPage === "debugger"
    ? chrome.permissions.request({ permissions: ["debugger"] }).catch(() => false)
    : Promise.resolve(false);
  asked.then(() => act("start", { category: $("category").value, batch: $("batch").value || null }, $("start")));
});
$("pause").addEventListener("click", () => act("pause", {}, $("pause")));
$("resume").addEventListener("click", () => act("resume", {}, $("resume")));
$("stop").addEventListener("click", () => act("stop", {}, $("stop")));
$("sign-out").addEventListener("click", () => act("sign-out", {}, $("sign-out")));
$("upload-now").addEventListener("click", () => {
  const traceId = state.latestTrace.id;
  showError(null);
  $("upload-now").disabled = true;
  // Progress arrives through storage while the upload runs in the service worker.
  send("upload", { traceId })
    .then(() => {
      justUploaded = traceId;
    })
    .catch(() => {}) // the reason is on the trace (upload.error), shown from there
    .finally(() => send("get-state").then(render, showError));
});
$("review-full").addEventListener("click", () => {
  chrome.tabs.create({ url: chrome.runtime.getURL(`review.html?trace=${state.latestTrace.id}`) });
});
$("record-another").addEventListener("click", () => {
  dismissed = state.latestTrace?.id ?? null;
  render(state);
});
$("open-review").addEventListener("click", () => {
  const traceId = state?.recording.traceId ?? state?.latestTraceId;
  chrome.tabs.create({ url: chrome.runtime.getURL(`review.html${traceId ? `?trace=${traceId}` : ""}`) });
});
$("open-options").addEventListener("click", () => chrome.runtime.openOptionsPage());

// Step counts and status change while the popup is open (captures, the badge).
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && Object.keys(changes).some((key) => key === "recording" || key.startsWith("trace:") || key === "catalog" || key === "session")) {
    send("get-state").then(render, showError);
  }
});

send("get-state")
  .then((initial) => {
    render(initial);
    if (initial.signedIn) return send("refresh").then(render);
    return undefined;
  })
  .catch(showError);
