/**
 * Which listing a link is: each tenant's index of its chatbot's listings by their `Url`, kept in the
 * tenant's part of the store, so a pasted link (Slack's link_shared, unfurled as a Work Object) costs
 * no service call at all while the index is fresh, and one catalogue read (a few pages) when it is
 * not. The index is rebuilt when the bridge changes a listing (`forgetListingIndex`, from /listing
 * create, update and delete) and after INDEX_TTL_MS for changes made elsewhere.
 *
 * Two kinds of record: `listing-index` (the listings' URLs to their ids, and when it was read) and
 * one `listing-entry:<id>` per listing (the listing as the service gave it), so a lookup reads the
 * small index and only the entries it names.
 */
import { z } from 'zod';
import type { Listing } from '../../service/schemas/listings';
import type { Json } from '../../state/store';
import { scoped } from '../../state/tenant-store';
import type { TenantScope, UnconnectedScope } from '../context';

/** Changes made outside the bridge show within this long. */
const INDEX_TTL_MS = 10 * 60_000;
const PAGE_SIZE = 50;
const MAX_PAGES = 4;
const INDEX_KEY = scoped('listing-index');
const entryKey = (id: number | string) => scoped('listing-entry', String(id));

const indexSchema = z.object({ at: z.number(), urls: z.record(z.number()) });
/** A stored listing: the service's, already parsed when it was kept (the fields the bridge reads are checked). */
const entrySchema = z
  .object({ id: z.number(), images: z.array(z.string()), extensionColumns: z.array(z.unknown()) })
  .passthrough();

/** A URL as the index keys it: scheme and host in lower case, no fragment, no trailing slash. */
export function listingUrlKey(url: string): string | undefined {
  try {
    const u = new URL(url);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return undefined;
    return `${u.protocol}//${u.host.toLowerCase()}${u.pathname.replace(/\/+$/, '')}${u.search}`;
  } catch {
    return undefined;
  }
}

/** The tenant's listings changed through the bridge: the next lookup reads the catalogue again. */
export async function forgetListingIndex(ctx: Pick<UnconnectedScope, 'view'>): Promise<void> {
  await ctx.view.delete(INDEX_KEY).catch(() => undefined);
}

async function readCatalogue(ctx: TenantScope): Promise<Listing[]> {
  const out: Listing[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const res = await ctx.chatbot.client.listListings({ chatbotId: ctx.chatbot.chatbotId, page, pageSize: PAGE_SIZE });
    out.push(...res.items);
    if (out.length >= res.total || res.items.length === 0) break;
  }
  return out;
}

/** The tenant's index, read again from the catalogue when missing or older than INDEX_TTL_MS. */
async function urlIndex(ctx: TenantScope): Promise<Record<string, number>> {
  const view = ctx.view;
  const kept = indexSchema.safeParse(await view.get(INDEX_KEY));
  if (kept.success && ctx.now() - kept.data.at < INDEX_TTL_MS) return kept.data.urls;
  const listings = await readCatalogue(ctx);
  const urls: Record<string, number> = {};
  for (const l of listings) {
    const key = l.url ? listingUrlKey(l.url) : undefined;
    if (!key) continue;
    urls[key] = l.id;
    await view.set(entryKey(l.id), l as unknown as Json, INDEX_TTL_MS * 6);
  }
  await view.set(INDEX_KEY, { at: ctx.now(), urls }, INDEX_TTL_MS * 6);
  return urls;
}

async function entry(ctx: TenantScope, id: number | string): Promise<Listing | undefined> {
  const got = entrySchema.safeParse(await ctx.view.get(entryKey(id)));
  return got.success ? (got.data as unknown as Listing) : undefined;
}

/** The listings among `urls` (each by its posted URL); a link that is no listing is not in the map. */
export async function listingsAt(ctx: TenantScope, urls: string[]): Promise<Map<string, Listing>> {
  const out = new Map<string, Listing>();
  const keys = urls.map((u) => [u, listingUrlKey(u)] as const).filter((k): k is [string, string] => !!k[1]);
  if (keys.length === 0) return out;
  const index = await urlIndex(ctx);
  for (const [posted, key] of keys) {
    const id = index[key];
    const l = id === undefined ? undefined : await entry(ctx, id);
    if (l) out.set(posted, l);
  }
  return out;
}

/** A listing of the tenant by its id (a Work Object's external_ref), from the index's entries. */
export async function listingById(ctx: TenantScope, id: string): Promise<Listing | undefined> {
  if (!/^\d+$/.test(id)) return undefined;
  const kept = await entry(ctx, id);
  if (kept) return kept;
  // Not kept (an old unfurl, an index rebuilt since): the index is read again once.
  const index = await urlIndex(ctx);
  return Object.values(index).includes(Number(id)) ? entry(ctx, id) : undefined;
}
