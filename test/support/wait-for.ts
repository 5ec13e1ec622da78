/**
 * The one bounded polling helper tests share: they wait for a condition, never for a fixed time.
 * The poll interval only bounds how late a met condition is noticed; it synchronises nothing.
 */

/**
 * Polls `probe` until it returns a value that is not undefined/false, or fails after `timeoutMs`.
 * Without `intervalMs` the polls back off from 10 to 100 ms.
 */
export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 15_000,
  intervalMs?: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let delay = intervalMs ?? 10;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, delay));
    if (intervalMs === undefined) delay = Math.min(100, delay * 2);
  }
}
