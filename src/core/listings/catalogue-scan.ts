/**
 * Lookups by id or URL, bounded. The service filters listings by city, sale type and MLS number but
 * not by id or URL, so those are found by reading the catalogue page by page. Two bounds keep that
 * from being a lever on the service:
 * - a lookup reads at most MAX_SCAN_PAGES pages of SCAN_PAGE_SIZE;
 * - lookups share one reading of the catalogue for FRESH_MS (per chatbot, per bridge): pages already
 *   read are searched again instead of fetched again, a miss on a catalogue read to its end costs no
 *   call, and concurrent lookups wait for the same page rather than each fetching it. However many
 *   people look up ids, this process reads each page at most once per FRESH_MS.
 * A listing changed through this bridge drops the reading (listingsChanged), so its own changes show at once.
 */
import type { Listing } from '../../service/schemas/listings';
import type { TenantScope } from '../context';
import { memorySlot } from '../memory';

const SCAN_PAGE_SIZE = 50;
const MAX_SCAN_PAGES = 40;
const FRESH_MS = 30_000;

interface Reading {
  at: number;
  pages: Listing[][];
  /** Every page was read (or the bound reached): a miss is final until the reading goes stale. */
  complete: boolean;
  /** The page being fetched, which every lookup waiting for it shares. */
  next?: Promise<void>;
}

/** Per bridge (its context's memory), per chatbot. */
const READINGS = memorySlot<Map<string, Reading>>('catalogue readings');

function readingsOf(ctx: Pick<TenantScope, 'chatbot' | 'memory' | 'now'>): Map<string, Reading> {
  return ctx.memory.get(READINGS, () => new Map<string, Reading>());
}

function readingOf(ctx: Pick<TenantScope, 'chatbot' | 'memory' | 'now'>): Reading {
  const cur = readingsOf(ctx).get(ctx.chatbot.chatbotId);
  if (cur && ctx.now() - cur.at < FRESH_MS) return cur;
  const fresh: Reading = { at: ctx.now(), pages: [], complete: false };
  readingsOf(ctx).set(ctx.chatbot.chatbotId, fresh);
  return fresh;
}

function readNextPage(ctx: Pick<TenantScope, 'chatbot' | 'memory' | 'now'>, r: Reading): Promise<void> {
  r.next ??= (async () => {
    const page = r.pages.length + 1;
    const res = await ctx.chatbot.client.listListings({
      chatbotId: ctx.chatbot.chatbotId,
      page,
      pageSize: SCAN_PAGE_SIZE,
    });
    r.pages.push(res.items);
    if (res.items.length < SCAN_PAGE_SIZE || page * SCAN_PAGE_SIZE >= res.total || page >= MAX_SCAN_PAGES)
      r.complete = true;
  })().finally(() => {
    r.next = undefined;
  });
  return r.next;
}

/** The listings of the first page that has any `match`, reading as few pages as the shared reading needs. */
export async function scanCatalogue(
  ctx: Pick<TenantScope, 'chatbot' | 'memory' | 'now'>,
  match: (l: Listing) => boolean,
): Promise<Listing[]> {
  const r = readingOf(ctx);
  for (let i = 0; i < MAX_SCAN_PAGES; i++) {
    while (i >= r.pages.length && !r.complete) await readNextPage(ctx, r);
    const page = r.pages[i];
    if (!page) return [];
    const found = page.filter(match);
    if (found.length > 0) return found;
  }
  return [];
}

/** This bridge created, changed or deleted a listing: the next lookup reads the catalogue afresh. */
export function listingsChanged(ctx: Pick<TenantScope, 'chatbot' | 'memory' | 'now'>): void {
  readingsOf(ctx).delete(ctx.chatbot.chatbotId);
}
