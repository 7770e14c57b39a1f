/**
 * Stand-ins for what the extension gets from Chrome: a storage area with chrome.storage's
 * get/set/remove semantics (values are copied, like the real one serialises them), an
 * IndexedDB-like screenshot store, a clock whose sleeps and timers run instantly, and a
 * browser with tabs that can be captured and described.
 */

export function fakeStorageArea(initial = {}) {
  const data = new Map(Object.entries(structuredClone(initial)));
  const keysOf = (keys) => (keys == null ? [...data.keys()] : Array.isArray(keys) ? keys : [keys]);
  return {
    data,
    async get(keys) {
      const found = {};
      for (const key of keysOf(keys)) if (data.has(key)) found[key] = structuredClone(data.get(key));
      return found;
    },
    async set(items) {
      for (const [key, value] of Object.entries(items)) data.set(key, structuredClone(value));
    },
    async remove(keys) {
      for (const key of keysOf(keys)) data.delete(key);
    },
  };
}

export function fakeScreens() {
  const blobs = new Map();
  return {
    blobs,
    put: async (id, blob) => void blobs.set(id, blob),
    get: async (id) => blobs.get(id),
    delete: async (id) => void blobs.delete(id),
  };
}

/** Time that only moves when told to: sleeps advance it at once; timers fire on tick(). */
export function fakeClock(start = 1_700_000_000_000) {
  let time = start;
  let nextId = 1;
  const timers = new Map();
  const clock = {
    now: () => time,
    sleeps: [],
    async sleep(ms) {
      clock.sleeps.push(ms);
      time += ms;
    },
    setTimeout(fn, ms = 0) {
      const id = nextId++;
      timers.set(id, { fn, due: time + ms });
      return id;
    },
    clearTimeout(id) {
      timers.delete(id);
    },
    /** Moves time forward by `ms`, firing due timers in order and letting their promises run. */
    async tick(ms) {
      const end = time + ms;
      for (;;) {
        await settle();
        const due = [...timers.entries()].filter(([, timer]) => timer.due <= end).sort((a, b) => a[1].due - b[1].due)[0];
        if (!due) break;
        timers.delete(due[0]);
        time = Math.max(time, due[1].due);
        due[1].fn();
      }
      time = Math.max(time, end);
      await settle();
    },
    get pendingTimers() {
      return timers.size;
    },
  };
  return clock;
}

export async function settle() {
  for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

const textOfDataUrl = (dataUrl) => Buffer.from(dataUrl.slice(dataUrl.indexOf(",") + 1), "base64").toString();

/**
 * Tabs whose "screen" is a string: a capture returns it as a PNG data URL, so two
 * captures are equal exactly when the screens are. A tab's page is `pageHeight` CSS
 * pixels tall (800, one viewport, unless set); scrolled, a capture shows "<screen> @<y>".
 * The full-page side: the content script's scrolling (pageCommand), drawing the parts
 * (composeParts gives a JSON "image" of where each part went) and chrome.debugger.
 */
export function fakeBrowser() {
  const tabs = new Map();
  const browser = {
    tabs,
    captures: [],
    badges: [],
    pageCommands: [],
    debuggerCommands: [],
    debuggerAllowed: false,
    addTab(tab) {
      const full = { windowId: 1, active: true, incognito: false, screen: "screen", scroll: { x: 0, y: 0 }, title: "", pageHeight: 800, ...tab };
      tabs.set(full.id, full);
      return full;
    },
    async getTab(tabId) {
      const tab = tabs.get(tabId);
      if (!tab) throw new Error(`No tab with id: ${tabId}.`);
      const { screen, scroll, pageHeight, ...visible } = tab;
      return { ...visible };
    },
    async captureVisibleTab(windowId, options) {
      const tab = [...tabs.values()].find((item) => item.windowId === windowId && item.active);
      browser.captures.push({ windowId, options, tabId: tab.id, scrollY: tab.scroll.y });
      const shown = tab.scroll.y ? `${tab.screen} @${tab.scroll.y}` : tab.screen;
      return `data:image/png;base64,${Buffer.from(shown).toString("base64")}`;
    },
    async describePage(tabId, { includeHtml, fullPage = false }) {
      const tab = tabs.get(tabId);
      const dpr = 2;
      const below = [10, 2000, 30, 40]; // CSS pixels: far below the first viewport
      const box = ([x, y, w, h]) => [x, fullPage ? y : y - tab.scroll.y, w, h].map((n) => n * dpr);
      const page = {
        url: tab.url,
        title: tab.title,
        viewport: { width: 1280, height: 800 },
        devicePixelRatio: dpr,
        scroll: tab.scroll,
        clickables: [{ tag: "a", text: "Next", alt: "", href: `${tab.url}?page=2`, bbox: [10, 20, 30, 40], selector: "a" }],
      };
      if (fullPage) page.clickables.push({ tag: "button", text: "Buy", alt: "", href: "", bbox: box(below), selector: "#buy" });
      if (includeHtml) page.html = `<html><body>${tab.screen}</body></html>`;
      return page;
    },
    async pageCommand(tabId, message) {
      const tab = tabs.get(tabId);
      browser.pageCommands.push(message);
      if (tab.scriptable === false) throw new Error("Cannot access contents of the page.");
      if (message.type === "full-page-begin") {
        tab.restoreTo ??= { ...tab.scroll };
        return { pageHeight: tab.pageHeight, viewportHeight: 800, viewportWidth: 1280, dpr: 2 };
      }
      if (message.type === "full-page-scroll") {
        tab.scroll = { x: 0, y: Math.min(message.y, Math.max(0, tab.pageHeight - 800)) };
        return { scrollY: tab.scroll.y };
      }
      if (message.type === "full-page-end") {
        tab.scroll = tab.restoreTo ?? tab.scroll;
        tab.restoreTo = undefined;
        return {};
      }
      throw new Error(`unexpected page command ${message.type}`);
    },
    async composeParts({ width, height, parts, format }) {
      const image = { width, height, format, parts: parts.map(({ dataUrl, top }) => ({ top, shows: textOfDataUrl(dataUrl) })) };
      return new Blob([JSON.stringify(image)], { type: `image/${format}` });
    },
    async debuggerGranted() {
      return browser.debuggerAllowed;
    },
    debuggee: {
      async attach(target) {
        browser.debuggerCommands.push(["attach", target]);
        if (browser.debuggerFails) throw new Error("Another debugger is already attached to the tab.");
      },
      async sendCommand(target, method, params) {
        browser.debuggerCommands.push([method, params]);
        const tab = tabs.get(target.tabId);
        if (method === "Runtime.evaluate") return { result: { type: "number", value: 2 } };
        if (method === "Page.getLayoutMetrics") {
          return { cssLayoutViewport: { clientWidth: 1280, clientHeight: 800 }, cssContentSize: { width: 1280, height: tab.pageHeight } };
        }
        if (method === "Page.captureScreenshot") return { data: Buffer.from(`${tab.screen}, whole page`).toString("base64") };
        throw new Error(`unexpected command ${method}`);
      },
      async detach(target) {
        browser.debuggerCommands.push(["detach", target]);
      },
    },
    async setBadge(status) {
      browser.badges.push(status);
    },
  };
  return browser;
}
