/**
 * Listings a user opened as cards (`/listing show`), remembered per user for the lead summary of a
 * later handoff: the last few, for 30 days.
 */
import { z } from 'zod';
import type { StateStore } from '../../state/store';
import type { SurfaceName } from '../surface';
import { parseStored, toJson } from '../conversations/model';

const KEEP = 10;
const TTL_MS = 30 * 24 * 3600 * 1000;
const openedSchema = z.array(z.object({ label: z.string(), at: z.number() }));

const key = (surface: SurfaceName, userId: string): string => `leadopened:${surface}:${encodeURIComponent(userId)}`;

/** Best effort: a listing card shown must not fail because this note could not be stored. */
export async function noteOpenedListing(
  store: StateStore,
  surface: SurfaceName,
  userId: string,
  label: string,
  at: number,
): Promise<void> {
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      const raw = await store.get(key(surface, userId));
      const list = (parseStored(openedSchema, raw) ?? []).filter((o) => o.label !== label);
      const next = [...list, { label, at }].slice(-KEEP);
      if (await store.compareAndSet(key(surface, userId), raw, toJson(next), TTL_MS)) return;
    }
  } catch {
    // The lead summary only loses this card.
  }
}

export async function openedListings(store: StateStore, surface: SurfaceName, userId: string): Promise<string[]> {
  return (parseStored(openedSchema, await store.get(key(surface, userId))) ?? []).map((o) => o.label);
}
