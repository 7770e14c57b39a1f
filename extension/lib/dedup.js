/**
 * Deciding that a capture shows nothing new: same URL, same scroll position and the same
 * screenshot bytes as the trace's previous step. Equal pixels encode to the same data URL,
 * so a cheap string hash is enough; it is not a perceptual hash on purpose (a changed
 * price must count as a change).
 */

/** Two 32-bit FNV-1a passes with different offsets, as 16 hex digits. */
export function hashString(text) {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

export function stepKey({ url, scroll, screenshotHash }) {
  const x = Math.round(scroll?.x ?? 0);
  const y = Math.round(scroll?.y ?? 0);
  return `${url}\n${x},${y}\n${screenshotHash}`;
}

export function isDuplicate(previousKey, key) {
  return Boolean(previousKey) && previousKey === key;
}
