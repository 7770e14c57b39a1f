/**
 * Telling back from forward. webNavigation only says a navigation was "forward_back", so
 * each tab keeps the list of URLs it went through and where it stands in it, the way the
 * browser's own history does.
 */

const MAX_ENTRIES = 100;

export function emptyHistory() {
  return { entries: [], index: -1 };
}

/**
 * The action type of a committed main-frame navigation ("navigate", "back" or "forward")
 * and the tab's history after it.
 */
export function recordNavigation(history, { url, transitionType = "link", qualifiers = [] }) {
  const entries = [...(history?.entries ?? [])];
  let index = history?.index ?? entries.length - 1;

  if (qualifiers.includes("forward_back")) {
    const type = historyDirection(entries, index, url);
    if (type) {
      index = type.index;
      return { type: type.type, history: { entries, index } };
    }
    // A page from before this tab was followed: most likely the Back button.
    return { type: "back", history: { entries: [url], index: 0 } };
  }
  if (transitionType === "reload" || qualifiers.includes("client_redirect") || qualifiers.includes("server_redirect")) {
    if (index >= 0) entries[index] = url;
    else entries.push(url);
    return { type: "navigate", history: { entries, index: Math.max(index, 0) } };
  }
  const kept = entries.slice(0, index + 1);
  kept.push(url);
  const trimmed = kept.slice(-MAX_ENTRIES);
  return { type: "navigate", history: { entries: trimmed, index: trimmed.length - 1 } };
}

function historyDirection(entries, index, url) {
  if (entries[index - 1] === url) return { type: "back", index: index - 1 };
  if (entries[index + 1] === url) return { type: "forward", index: index + 1 };
  for (let distance = 2; distance < entries.length; distance += 1) {
    if (entries[index - distance] === url) return { type: "back", index: index - distance };
    if (entries[index + distance] === url) return { type: "forward", index: index + distance };
  }
  return null;
}
