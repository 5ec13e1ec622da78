/**
 * The listings the chatbot's recent answers in a channel named (by address, listings/named.ts), kept
 * per channel in the channel's tenant's part of the store: the agent experience's prompts about the
 * channel a user is looking at ask about them. A few titles, newest first, for a week; a cosmetic
 * record (two answers ending at once may keep one of their lists).
 */
import { z } from 'zod';
import type { Listing } from '../../service/schemas/listings';
import { scoped } from '../../state/tenant-store';
import type { UnconnectedScope } from '../context';
import type { Place } from '../surface';
import { listingTitle } from './format';

const KEPT = 5;
const KEEP_MS = 7 * 24 * 60 * 60 * 1000;
const keptSchema = z.array(z.object({ title: z.string(), at: z.number() }));

const keyOf = (channel: string) => scoped('channel-listings', channel);

/** Notes the listings an answer in `place`'s channel (of the scope's tenant) named (nothing when it named none). */
export async function noteChannelListings(
  ctx: Pick<UnconnectedScope, 'view' | 'now'>,
  place: Place,
  named: readonly Listing[],
): Promise<void> {
  if (named.length === 0) return;
  const view = ctx.view;
  const at = ctx.now();
  const fresh = named.map((l) => ({ title: listingTitle(l), at }));
  const titles = new Set(fresh.map((f) => f.title));
  // An answer that named as many as are kept replaces the list: the one before need not be read.
  const before = titles.size >= KEPT ? undefined : keptSchema.safeParse(await view.get(keyOf(place.channel)));
  const kept = [...fresh, ...(before?.success ? before.data.filter((k) => !titles.has(k.title)) : [])].slice(0, KEPT);
  await view.set(keyOf(place.channel), kept, KEEP_MS);
}

/** The listings recent answers in `place`'s channel named, newest first (titles: their addresses). */
export async function channelListings(ctx: Pick<UnconnectedScope, 'view'>, place: Place): Promise<string[]> {
  const kept = keptSchema.safeParse(await ctx.view.get(keyOf(place.channel)));
  return kept.success ? kept.data.map((k) => k.title) : [];
}
