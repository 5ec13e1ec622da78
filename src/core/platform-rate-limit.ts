/**
 * A platform's refusal for rate (HTTP 429), as every surface reports it to its gateway and core.
 * Kept apart from the port (surface.ts re-exports it) so the port file holds only the port.
 */
/**
 * The longest platform Retry-After the bridge waits for (the chatbot service's is capped the same).
 * Past it the call fails as a 429 its caller handles: an hour's wait would hold the answer, its
 * queue and everyone behind it.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Thrown by a surface when the platform refused a call for rate (HTTP 429) after the surface's own
 * bounded retries: the surface's gateway waits `retryAfterMs` and tries again, within its own bound
 * (a Retry-After past MAX_RETRY_AFTER_MS is not waited for: the call fails to its caller).
 */
export class PlatformRateLimitError extends Error {
  constructor(
    readonly retryAfterMs: number,
    message = `rate limited, retry after ${retryAfterMs} ms`,
  ) {
    super(message);
    this.name = 'PlatformRateLimitError';
  }
}

/** The wait a platform asked for (Retry-After) when `err` is its rate refusal; undefined otherwise. */
export function rateLimitDelay(err: unknown): number | undefined {
  if (err instanceof PlatformRateLimitError) return err.retryAfterMs;
  // Duck-typed too: a surface bundled with another copy of the class must still be obeyed.
  if (err instanceof Error && err.name === 'PlatformRateLimitError') {
    const ms = (err as Error & { retryAfterMs?: unknown }).retryAfterMs;
    if (typeof ms === 'number' && Number.isFinite(ms)) return ms;
  }
  return undefined;
}

/** A platform 429 (Retry-After), which the surface's gateway retries itself. */
export function isPlatformRateLimit(err: unknown): boolean {
  return rateLimitDelay(err) !== undefined;
}
