/** The options page: what each step stores, and whether the platform's own pages are skipped. */
import { send } from "./lib/messages.js";

const $ = (testId) => document.querySelector(`[data-testid="${testId}"]`);

function show(settings) {
  $("capture-html").checked = settings.captureHtml;
  $("image-format").value = settings.imageFormat;
  $("jpeg-quality").value = settings.jpegQuality;
  $("skip-platform-pages").checked = settings.skipPlatformPages;
}

$("settings-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("settings-saved").hidden = true;
  $("error").hidden = true;
  try {
    const { settings } = await send("save-settings", {
      settings: {
        captureHtml: $("capture-html").checked,
        imageFormat: $("image-format").value,
        jpegQuality: Number($("jpeg-quality").value),
        skipPlatformPages: $("skip-platform-pages").checked,
      },
    });
    show(settings);
    $("settings-saved").hidden = false;
  } catch (error) {
    $("error").textContent = error.message;
    $("error").hidden = false;
  }
});

const { version } = chrome.runtime.getManifest();
$("about").textContent = `Version ${version} · extension id ${chrome.runtime.id}`;
send("get-state").then(({ settings }) => show(settings));
