/**
 * Limits per person, counted in the state store so they hold across instances:
 * - the chatbot's own RateLimitCount per RateLimitTime, applied per platform user across all their
 *   conversations (the service counts per chat session, and every /ask opens a new one, so a user
 *   asking in a loop would otherwise spend the chatbot's MessageLimit for everyone);
 * - the bridge's flood limit for commands, button presses and form submits (USER_RATE_LIMIT a minute).
 * A store that cannot count lets the user through: a limit must not take the bridge down with it.
 */
import { RATE_LIMIT_DEFAULTS } from '../../service/schemas/settings';
import type { RateDecision } from '../../state/store';
import { scoped } from '../../state/tenant-store';
import type { CoreContext, TenantScope } from '../context';
import { readAppliedSettings } from '../settings/applied';
import type { Actor, Place } from '../surface';

const MINUTE_MS = 60_000;

/**
 * One person on one surface, whatever conversation, channel or thread they write in. The flood limit
 * protects the bridge, so it is global on purpose: a Discord user is the same person in every server.
 */
function floodKey(place: Place, actor: Actor): string {
  return `limit:flood:${place.surface}:${actor.id}`;
}

/** How long until a token is free when the store refused one; undefined when granted, or when the store cannot count. */
async function waitOf(decision: Promise<RateDecision>): Promise<number | undefined> {
  const d = await decision.catch(() => undefined);
  return d && !d.granted ? d.retryInMs : undefined;
}

/**
 * Undefined when this question may go to the chatbot, else the words to answer with (the chatbot's
 * RateLimitMessage). Settings the bridge never applied are the service's defaults (no count: no limit).
 */
export async function questionRefusal(ctx: TenantScope, actor: Actor): Promise<string | undefined> {
  const applied = await readAppliedSettings(ctx);
  const count = applied.RateLimitCount ?? RATE_LIMIT_DEFAULTS.RateLimitCount;
  const seconds = applied.RateLimitTime ?? RATE_LIMIT_DEFAULTS.RateLimitTime;
  if (count <= 0 || seconds <= 0) return undefined;
  // Counted in the tenant's own part of the store: each office's chatbot has its own RateLimitCount.
  const wait = await waitOf(ctx.view.takeToken(scoped('limit', 'chatbot', actor.id), count, seconds * 1000));
  if (wait === undefined) return undefined;
  return applied.RateLimitMessage?.trim() ? applied.RateLimitMessage : RATE_LIMIT_DEFAULTS.RateLimitMessage;
}

/** Undefined when this command, button press or form submit may run, else an ephemeral saying when to try again. */
export async function floodRefusal(ctx: CoreContext, place: Place, actor: Actor): Promise<string | undefined> {
  const perMinute = ctx.config.userRateLimit ?? 0;
  if (perMinute <= 0) return undefined;
  const wait = await waitOf(ctx.store.takeToken(floodKey(place, actor), perMinute, MINUTE_MS));
  if (wait === undefined) return undefined;
  const at = new Date(ctx.now() + wait).toISOString().slice(11, 19);
  return `You are going too fast: at most ${perMinute} commands and button presses a minute. Try again in ${Math.ceil(wait / 1000)} s (at ${at} UTC).`;
}
