/** Finding listings by key and by page, through RealEstateList (the interface has no "get one"). */
import type { KeyType, Listing, SaleType } from '../../service/schemas/listings';
import type { TenantScope } from '../context';
import { scanCatalogue } from './catalogue-scan';

export interface ListingFilters {
  city?: string;
  saleType?: SaleType;
  mls?: string;
}

export interface ListingPage {
  items: Listing[];
  total: number;
  page: number;
  pages: number;
}

/**
 * A page holds a short list whole (a city's six listings are one page) and is one Slack carousel
 * (at most 10 cards); Discord splits a page across messages where its limits ask.
 */
export const CARDS_PER_PAGE = 10;

export async function fetchListingPage(
  ctx: Pick<TenantScope, 'chatbot'>,
  filters: ListingFilters,
  page: number,
  pageSize = CARDS_PER_PAGE,
): Promise<ListingPage> {
  const res = await ctx.chatbot.client.listListings({ chatbotId: ctx.chatbot.chatbotId, ...filters, page, pageSize });
  return { items: res.items, total: res.total, page, pages: Math.max(1, Math.ceil(res.total / pageSize)) };
}

/** A listing key as people type it: `id:`, `mls:`, `url:`. */
export interface ListingKey {
  keyType: KeyType;
  key: string;
}

export function describeKey(k: ListingKey): string {
  const prefix = k.keyType === 'ListingId' ? 'id' : k.keyType === 'MLSNumber' ? 'mls' : 'url';
  return `${prefix}:${k.key}`;
}

/** Compact form for form state and button values: `<KeyType>:<key>`. */
export function encodeKey(k: ListingKey): string {
  return `${k.keyType}:${k.key}`;
}

export function decodeKey(value: string): ListingKey | undefined {
  const i = value.indexOf(':');
  if (i < 0) return undefined;
  const keyType = value.slice(0, i);
  const key = value.slice(i + 1);
  if ((keyType === 'ListingId' || keyType === 'MLSNumber' || keyType === 'URL') && key !== '') return { keyType, key };
  return undefined;
}

const SCAN_PAGE_SIZE = 50;

function matches(l: Listing, k: ListingKey): boolean {
  switch (k.keyType) {
    case 'ListingId':
      return String(l.id) === k.key.trim();
    case 'MLSNumber':
      return (l.mlsNumber ?? '').toLowerCase() === k.key.trim().toLowerCase();
    case 'URL':
      return normUrl(l.url ?? '') === normUrl(k.key);
  }
}

const normUrl = (u: string): string => u.trim().replace(/\/+$/, '').toLowerCase();

/**
 * Every listing the key names. MLS numbers filter on the service; ids and URLs have no filter, so
 * the catalogue is scanned, bounded and shared between lookups (catalogue-scan.ts).
 */
export async function findListings(
  ctx: Pick<TenantScope, 'chatbot' | 'memory' | 'now'>,
  k: ListingKey,
): Promise<Listing[]> {
  if (k.keyType === 'MLSNumber') {
    const res = await ctx.chatbot.client.listListings({
      chatbotId: ctx.chatbot.chatbotId,
      mls: k.key,
      page: 1,
      pageSize: SCAN_PAGE_SIZE,
    });
    const exact = res.items.filter((l) => matches(l, k));
    return exact;
  }
  return scanCatalogue(ctx, (l) => matches(l, k));
}
