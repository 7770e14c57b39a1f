/** How the extension's pages talk to the service worker (see the message API in README.md). */
export async function send(type, payload = {}) {
  const response = await chrome.runtime.sendMessage({ type, ...payload });
  if (!response?.ok) {
    const error = new Error(response?.error?.message ?? "The extension's background worker did not answer.");
    error.code = response?.error?.code ?? "no_answer";
    throw error;
  }
  return response;
}

/** Short words for an action, as the popup and the review page show it. */
export function describeAction(action) {
  const target = action?.target;
  const name = target ? target.text || target.label || target.href || target.tag : "";
  const quoted = name ? ` “${name.length > 60 ? `${name.slice(0, 59)}…` : name}”` : "";
  const words = {
    navigate: "page load",
    back: "back",
    forward: "forward",
    scroll: "scroll",
    click: `click${quoted}`,
    submit: `submit${quoted}`,
    type: `typing in${quoted || " a field"}`,
  };
  return words[action?.type] ?? action?.type ?? "";
}
