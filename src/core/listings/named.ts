/**
 * The listings an answer names: an answer that talks about "12 Oak Street" gains
 * that listing's card with its final edit. The service says nothing about which listings an answer
 * used, so the names are looked up in the answer's text: each listing's address.
 * The catalogue is read once a minute at most (a few pages), so an answer's end never waits on it.
 */
import type { Listing } from '../../service/schemas/listings';
import type { TenantScope } from '../context';
import { listingTitle } from './format';
import { hostOf } from '../text/links';

const CATALOGUE_TTL_MS = 60_000;
const PAGE_SIZE = 50;
const MAX_PAGES = 4;
/** One carousel. */
const MAX_NAMED = 10;

const norm = (s: string): string => s.toLowerCase().replace(/\s+/g, ' ');

/** The listings `text` names by address, in the order the text names them (at most 10). */
export function listingsNamedIn(text: string, listings: readonly Listing[]): Listing[] {
  const hay = norm(text);
  const found: Array<{ at: number; l: Listing }> = [];
  for (const l of listings) {
    // By address only: a card is titled by its address, so the message text (which must stay the
    // answer's exact text) already names every card it shows.
    const address = l.address?.trim();
    if (!address || address.length < 4) continue;
    const at = hay.indexOf(norm(address));
    if (at >= 0) found.push({ at, l });
  }
  const seen = new Set<string>();
  return found
    .sort((a, b) => a.at - b.at)
    .map((f) => f.l)
    .filter((l) => {
      const k = listingTitle(l);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .slice(0, MAX_NAMED);
}

/** The hosts of the listings' URLs and photos: an answer's links to them show under their label. */
export function listingHosts(listings: readonly Listing[]): string[] {
  const hosts = new Set<string>();
  for (const l of listings)
    for (const url of [l.url, ...l.images]) {
      const host = url ? hostOf(url) : undefined;
      if (host) hosts.add(host);
    }
  return [...hosts];
}

/** The catalogue of listings answers may name, read a few pages at a time and kept a minute. */
export class ListingCatalogue {
  private cached: { until: number; items: Promise<Listing[]> } | undefined;
  /** The hosts of their URLs and photos, as last read: links to them show under their label. */
  hosts: readonly string[] = [];
  /** Read once at least (the process's first answer waits for it). */
  hostsRead = false;

  constructor(private readonly ctx: Pick<TenantScope, 'chatbot' | 'now' | 'log'>) {}

  /** The listings, or none when the service cannot say (an answer then has no cards). */
  read(): Promise<Listing[]> {
    const now = this.ctx.now();
    if (!this.cached || this.cached.until <= now) {
      const items = this.fetch()
        .then((read) => {
          if (read.length > 0) this.hosts = listingHosts(read);
          return read;
        })
        .catch((err: unknown) => {
          this.ctx.log.warn({ err }, 'listings for answer cards unavailable');
          this.cached = undefined;
          return [];
        })
        .finally(() => {
          this.hostsRead = true;
        });
      this.cached = { until: now + CATALOGUE_TTL_MS, items };
    }
    return this.cached.items;
  }

  private async fetch(): Promise<Listing[]> {
    const out: Listing[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const res = await this.ctx.chatbot.client.listListings({
        chatbotId: this.ctx.chatbot.chatbotId,
        page,
        pageSize: PAGE_SIZE,
      });
      out.push(...res.items);
      if (out.length >= res.total || res.items.length === 0) break;
    }
    return out;
  }
}
