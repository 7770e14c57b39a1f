/**
 * The review page: every captured step of a trace as a thumbnail with its action; the
 * rater deletes steps that show personal data, then uploads. Reads screenshots straight
 * from IndexedDB; every change goes through the service worker.
 */
import { taskUrl } from "./lib/afterstop.js";
import { describeAction, send } from "./lib/messages.js";
import { openScreens } from "./lib/screens.js";

const screens = openScreens();
const $ = (testId) => document.querySelector(`[data-testid="${testId}"]`);
const imageUrls = new Map(); // step id -> object URL of its screenshot
const cards = new Map(); // step id -> its card element
let view = null; // { trace, steps } on show
let uploadRunning = false;
let platformUrl = null; // for the link back to the platform once uploaded

function showError(error) {
  $("error").textContent = error ? error.message ?? String(error) : "";
  $("error").hidden = !error;
}

function when(iso) {
  return iso ? new Date(iso).toLocaleString() : "";
}

function traceLabel(trace) {
  const batch = trace.batchName ? ` / ${trace.batchName}` : "";
  return `${when(trace.startedAt)} — ${trace.categoryName || trace.category}${batch} — ${trace.stepIds.length} steps — ${trace.state}`;
}

async function loadTraces(preferredId) {
  const { traces } = await send("list-traces");
  const select = $("trace");
  select.replaceChildren(...traces.map((trace) => new Option(traceLabel(trace), trace.id)));
  $("no-traces").hidden = traces.length > 0;
  $("delete-trace").hidden = traces.length === 0;
  const wanted = [preferredId, view?.trace.id].find((id) => id && traces.some((trace) => trace.id === id));
  const chosen = wanted ?? traces[0]?.id ?? null;
  if (chosen) select.value = chosen;
  await showTrace(chosen);
}

async function showTrace(traceId) {
  if (!traceId) {
    view = null;
    document.getElementById("trace-view").hidden = true;
    return;
  }
  if (view?.trace.id !== traceId) {
    for (const url of imageUrls.values()) URL.revokeObjectURL(url);
    imageUrls.clear();
    cards.clear();
    $("steps").replaceChildren();
  }
  render(await send("get-trace", { traceId }));
}

function render(next) {
  view = { trace: next.trace, steps: next.steps };
  const { trace, steps } = view;
  document.getElementById("trace-view").hidden = false;
  const option = [...$("trace").options].find((item) => item.value === trace.id);
  if (option) option.textContent = traceLabel(trace);

  const facts = [
    `Category: ${trace.categoryName || trace.category}`,
    trace.batchName ? `batch: ${trace.batchName}` : "no batch",
    `started ${when(trace.startedAt)}`,
    trace.stoppedAt ? `stopped ${when(trace.stoppedAt)}` : "",
    `state: ${trace.state}`,
    trace.serverId ? `platform trace #${trace.serverId}` : "",
  ];
  $("trace-facts").textContent = facts.filter(Boolean).join(" · ");
  $("trace-facts").dataset.state = trace.state;

  renderUpload(trace, steps);
  renderSteps(trace, steps);
}

function renderUpload(trace, steps) {
  const upload = trace.upload;
  const recording = trace.state === "recording" || trace.state === "paused";
  const finished = trace.state === "finished";
  const button = $("upload");
  button.disabled = uploadRunning || recording || finished || trace.state === "uploading" || steps.length === 0;
  button.textContent = finished ? "Uploaded" : upload?.error ? "Upload again" : "Upload";
  button.title = recording ? "Stop the recording first (toolbar button → Stop)." : "";

  const progress = $("upload-progress");
  progress.hidden = !upload;
  progress.max = Math.max(1, upload?.total ?? steps.length);
  progress.value = upload?.done ?? 0;

  let status = "";
  if (recording) status = "Stop the recording before uploading.";
  else if (trace.state === "uploading") {
    status = `Uploading: ${upload?.done ?? 0} of ${upload?.total ?? steps.length} steps stored`;
    if (upload?.retrying) status += ` — network trouble, retrying in ${Math.round(upload.retrying.delayMs / 1000)} s`;
  }
  $("upload-status").textContent = status;

  $("upload-done").hidden = !finished;
  $("upload-done").textContent = finished ? `Uploaded: ${steps.length} steps stored, trace #${trace.serverId} finished.` : "";
  const link = taskUrl(platformUrl, trace);
  $("task-link").hidden = !finished || !link;
  if (link) $("task-link").href = link;
  $("upload-error").hidden = !upload?.error || finished;
  $("upload-error").textContent = upload?.error ? `Upload stopped: ${upload.error.message}` : "";
}

function renderSteps(trace, steps) {
  const locked = Boolean(trace.serverId) || trace.state === "uploading";
  const kept = new Set(steps.map((step) => step.id));
  for (const [id, card] of cards) {
    if (!kept.has(id)) {
      card.remove();
      cards.delete(id);
      if (imageUrls.has(id)) URL.revokeObjectURL(imageUrls.get(id));
      imageUrls.delete(id);
    }
  }
  steps.forEach((step, index) => {
    const card = cards.get(step.id) ?? createCard(step);
    card.querySelector(".number").textContent = `#${index + 1}`;
    card.querySelector(".stored").hidden = !step.stored;
    const remove = card.querySelector("[data-testid=delete-step]");
    remove.disabled = locked;
    remove.title = locked ? "This trace is on the platform already; its steps cannot be deleted." : "";
    $("steps").append(card); // appending an existing node moves it: keeps the order
  });
}

function createCard(step) {
  const card = document.createElement("article");
  card.className = "step";
  card.dataset.testid = "step";
  card.dataset.stepId = step.id;
  card.dataset.action = step.action.type;
  card.innerHTML = `
    <img data-testid="step-screenshot" alt="">
    <p class="action"><span class="number"></span> <span data-testid="step-action"></span></p>
    <p class="url" data-testid="step-url"></p>
    <div class="row">
      <span class="hint"></span><span class="stored" data-testid="step-stored" hidden>uploaded</span>
      <button type="button" class="danger" data-testid="delete-step">Delete step</button>
    </div>`;
  card.querySelector("[data-testid=step-action]").textContent = describeAction(step.action);
  card.querySelector(".url").textContent = step.title ? `${step.title} — ${step.url}` : step.url;
  card.querySelector(".hint").textContent = new Date(step.capturedAt).toLocaleTimeString();
  const image = card.querySelector("img");
  image.alt = `Screenshot of ${step.url}`;
  screenshotUrl(step.id).then((url) => {
    if (url) image.src = url;
  }, showError);
  image.addEventListener("click", () => openViewer(step));
  card.querySelector("[data-testid=delete-step]").addEventListener("click", (event) => deleteStep(step.id, event.target));
  cards.set(step.id, card);
  return card;
}

async function screenshotUrl(stepId) {
  if (!imageUrls.has(stepId)) {
    const blob = await screens.get(stepId);
    if (!blob) return null;
    imageUrls.set(stepId, URL.createObjectURL(blob));
  }
  return imageUrls.get(stepId);
}

async function openViewer(step) {
  const dialog = document.getElementById("viewer");
  const image = dialog.querySelector("img");
  const box = dialog.querySelector(".target-box");
  box.hidden = true;
  image.onload = () => {
    const bbox = step.action.target?.bbox;
    if (!bbox || !image.naturalWidth) return;
    const [x, y, width, height] = bbox;
    Object.assign(box.style, {
      left: `${(x / image.naturalWidth) * 100}%`,
      top: `${(y / image.naturalHeight) * 100}%`,
      width: `${(width / image.naturalWidth) * 100}%`,
      height: `${(height / image.naturalHeight) * 100}%`,
    });
    box.hidden = false;
  };
  image.src = (await screenshotUrl(step.id)) ?? "";
  document.getElementById("viewer-caption").textContent = `${describeAction(step.action)} — ${step.url}`;
  dialog.showModal();
}

async function deleteStep(stepId, button) {
  showError(null);
  button.disabled = true;
  try {
    render(await send("delete-step", { traceId: view.trace.id, stepId }));
  } catch (error) {
    button.disabled = false;
    showError(error);
  }
}

async function upload() {
  showError(null);
  uploadRunning = true;
  renderUpload(view.trace, view.steps);
  try {
    const { trace } = await send("upload", { traceId: view.trace.id });
    view.trace = trace;
  } catch {
    // The reason is on the trace (upload.error) and shown from there.
  } finally {
    uploadRunning = false;
    await showTrace(view.trace.id).catch(showError);
  }
}

let confirmDeleteUntil = 0;
async function deleteTrace(button) {
  if (Date.now() > confirmDeleteUntil) {
    confirmDeleteUntil = Date.now() + 4000;
    button.textContent = "Click again to delete the whole trace";
    setTimeout(() => {
      button.textContent = "Delete trace";
    }, 4000);
    return;
  }
  confirmDeleteUntil = 0;
  button.textContent = "Delete trace";
  try {
    await send("delete-trace", { traceId: view.trace.id });
    view = null;
    await loadTraces();
  } catch (error) {
    showError(error);
  }
}

$("trace").addEventListener("change", (event) => showTrace(event.target.value).catch(showError));
$("upload").addEventListener("click", upload);
$("delete-trace").addEventListener("click", (event) => deleteTrace(event.currentTarget));

// Captures, deletions and upload progress arrive through storage; refresh once per burst.
let refreshTimer = null;
let listChanged = false;
chrome.storage.onChanged.addListener((changes, area) => {
  if (area !== "local") return;
  const relevant = "traceIds" in changes || (view && `trace:${view.trace.id}` in changes);
  if (!relevant) return;
  listChanged ||= "traceIds" in changes;
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => {
    const refresh = listChanged || !view ? loadTraces() : showTrace(view.trace.id);
    listChanged = false;
    refresh.catch(showError);
  }, 100);
});

send("get-state")
  .then((state) => {
    platformUrl = state.platformUrl;
  })
  .catch(() => {}) // signed out: no link back, the rest of the page still works
  .finally(() => loadTraces(new URLSearchParams(location.search).get("trace")).catch(showError));
