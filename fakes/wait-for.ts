/**
 * The one bounded wait tests share: they wait for a condition, never for a fixed time. The poll
 * interval only bounds how late a met condition is noticed; it synchronises nothing.
 */

/**
 * What a fake, a test surface or a shell session offers so a wait re-checks the moment it may have
 * changed (an EventEmitter emitting 'change' fits), instead of at the next poll.
 */
export interface ChangeSignal {
  on(event: 'change', listener: () => void): unknown;
  off(event: 'change', listener: () => void): unknown;
}

/**
 * Checks `probe` until it returns a value that is not undefined, null or false, and resolves with
 * it; fails after `timeoutMs` saying what it waited for (`what` may be a function, read only then).
 * It re-checks on every `changes` event and, for changes that do not go through that signal (a
 * store, another process), also polls, backing off from 10 to 100 ms.
 */
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string | (() => string),
  timeoutMs = 15_000,
  changes?: ChangeSignal,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let delay = 10;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    }
    await nextCheck(Math.min(delay, Math.max(1, deadline + 1 - Date.now())), changes);
    delay = Math.min(100, delay * 2);
  }
}

/** Resolves after `delayMs` or on the next change, whichever comes first. */
function nextCheck(delayMs: number, changes: ChangeSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      changes?.off('change', done);
      resolve();
    };
    const timer = setTimeout(done, delayMs);
    changes?.on('change', done);
  });
}
