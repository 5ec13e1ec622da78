/**
 * Waits that hand back what they waited for, so the test asserts on it with `expect` (a bare wait
 * proves only that something matched, not what it said).
 */
import { waitFor } from '../../fakes/wait-for';

/** The first of `texts()` (a thread, a channel) that matches `re`, once there is one. */
export function textMatching(
  texts: () => readonly string[],
  re: RegExp,
  what: string,
  timeoutMs?: number,
): Promise<string> {
  return waitFor(() => texts().find((t) => re.test(t)), what, timeoutMs);
}

/** `read()` (a text that changes in place, e.g. a ticket's state line) once it matches `re`. */
export function becomes(read: () => string | undefined, re: RegExp, what: string, timeoutMs?: number): Promise<string> {
  return waitFor(
    () => {
      const now = read();
      return now !== undefined && re.test(now) && now;
    },
    what,
    timeoutMs,
  );
}
