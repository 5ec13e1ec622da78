/** What the Discord port makes of REST errors: a 429 as the core's rate-limit error, a loggable summary. */
import { DiscordAPIError, RateLimitError } from 'discord.js';
import { PlatformRateLimitError } from '../../core/surface';

export function toRateLimitError(err: unknown): unknown {
  if (err instanceof RateLimitError) return new PlatformRateLimitError(Math.max(1, err.retryAfter));
  if (err instanceof DiscordAPIError && err.status === 429) return new PlatformRateLimitError(1000);
  return err;
}

/** What may be logged of a REST error (never its URL: interaction tokens live in webhook paths). */
export function errSummary(err: unknown): Record<string, unknown> {
  if (err instanceof DiscordAPIError) return { status: err.status, code: err.code, message: err.message };
  return { message: err instanceof Error ? err.message : String(err) };
}
