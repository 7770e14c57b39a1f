// Appended to background.js by the browser tests (tests/e2e/test_extension.py), never
// packaged: lets a test drive the service worker with serviceWorker.evaluate(), through
// the same dispatch as the popup's messages.
globalThis.trailmark = {
  send: (message) => dispatch(message, { id: chrome.runtime.id }),
  store,
  recorder,
};
