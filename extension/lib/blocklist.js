/**
 * Which pages may be captured at all. The platform's block list (GET /api/v1/blocklist/)
 * names hosts (a host also blocks its subdomains) and path fragments; the platform's own
 * pages (the rater's account, their tokens) are skipped too unless the rater turns that
 * off in the options.
 */

export function isCapturableUrl(url) {
  try {
    const { protocol } = new URL(url);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

function bareHost(host) {
  return String(host ?? "")
    .trim()
    .toLowerCase()
    .replace(/^\*?\./, "")
    .replace(/\.$/, "");
}

/** Why `url` must not be captured, or null when it may be. */
export function blockReason(url, { blocklist = {}, platformUrl = null, skipPlatformPages = true } = {}) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return "not a web page";
  }
  if (!isCapturableUrl(url)) return "not a web page";
  const host = bareHost(parsed.hostname);
  for (const entry of blocklist.hosts ?? []) {
    const blocked = bareHost(entry);
    if (blocked && (host === blocked || host.endsWith(`.${blocked}`))) return `blocked host ${blocked}`;
  }
  const path = parsed.pathname.toLowerCase();
  for (const pattern of blocklist.patterns ?? []) {
    const fragment = String(pattern ?? "").toLowerCase();
    if (fragment && path.includes(fragment)) return `blocked path ${pattern}`;
  }
  if (skipPlatformPages && platformUrl) {
    try {
      if (new URL(platformUrl).origin === parsed.origin) return "a Trailmark page";
    } catch {
      // An unreadable platform URL cannot match anything.
    }
  }
  return null;
}
