/**
 * Paces chrome.tabs.captureVisibleTab. Chrome allows two calls per second per extension
 * and fails the third at once with MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND, so calls run
 * one at a time, at least `minIntervalMs` apart, and a call refused for the rate is tried
 * again after a pause instead of losing the step.
 */

export const RATE_LIMIT_MARKER = "MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND";

export function isRateLimitError(error) {
  return String(error?.message ?? error ?? "").includes(RATE_LIMIT_MARKER);
}

const realSleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function createPacer({
  minIntervalMs = 550,
  retryDelayMs = 1000,
  maxAttempts = 4,
  now = () => Date.now(),
  sleep = realSleep,
} = {}) {
  let lastStart = Number.NEGATIVE_INFINITY;
  let queue = Promise.resolve();

  async function waitForSlot() {
    const wait = lastStart + minIntervalMs - now();
    if (wait > 0) await sleep(wait);
    lastStart = now();
  }

  async function attempt(fn) {
    for (let attemptNumber = 1; ; attemptNumber += 1) {
      await waitForSlot();
      try {
        return await fn();
      } catch (error) {
        if (!isRateLimitError(error) || attemptNumber >= maxAttempts) throw error;
        // Another caller (or a worker that was just restarted) used the budget: let the
        // one-second window pass before the next try.
        await sleep(retryDelayMs);
      }
    }
  }

  return {
    /** Runs `fn` (one capture) when its turn and the rate allow; resolves with its result. */
    run(fn) {
      const result = queue.then(() => attempt(fn));
      queue = result.catch(() => {});
      return result;
    },
  };
}
