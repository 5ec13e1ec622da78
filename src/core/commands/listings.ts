/** `/listings [city:] [type:] [mls:] [page:]`: RealEstateList as cards with Prev/Next buttons. */
import { z } from 'zod';
import { type Listing, SALE_TYPES, type SaleType } from '../../service/schemas/listings';
import type { TenantScope } from '../context';
import { CARDS_PER_PAGE, fetchListingPage, type ListingFilters } from '../listings/find';
import { matchOption } from '../listings/fields';
import { formatArea, formatBedsBaths, formatPrice, listingCard, listingTitle, statusBadge } from '../listings/format';
import type { Button, DataTable, Invocation, OutMessage } from '../surface';
import { UsageError, parseArgs, tokenize } from './grammar';
import { usageOf } from './catalogue';
import { listingActions } from '../listings/card-actions';
import { guarded, guardedCommand } from './respond';

const USAGE = usageOf('listings');
export const LISTINGS_PAGE_ACTION = 'listings.page';

const ALIASES: Record<string, 'city' | 'type' | 'mls' | 'page'> = {
  city: 'city',
  cityname: 'city',
  type: 'type',
  saletype: 'type',
  mls: 'mls',
  mlsnumber: 'mls',
  page: 'page',
};

const argsSchema = z
  .object({
    city: z.string().trim().min(1, 'city: give a city name, e.g. city:Austin').optional(),
    type: z
      .string()
      .transform((t, c) => {
        const v = matchOption(SALE_TYPES, t);
        if (!v)
          c.addIssue({
            code: 'custom',
            message: `type: "${t}" is not a sale type; use type:for_sale or type:for_rent`,
          });
        return v as SaleType;
      })
      .optional(),
    mls: z.string().trim().min(1, 'mls: give an MLS number, e.g. mls:TX-1001').optional(),
    page: z
      .string()
      .regex(/^\d+$/, 'page: must be a whole number, 1 or more (e.g. page:2)')
      .transform(Number)
      .refine((n) => n >= 1, 'page: must be 1 or more')
      .optional(),
  })
  .strict();

export interface ListingsQuery extends ListingFilters {
  page: number;
}

export function parseListingsArgs(args: string): ListingsQuery {
  const raw: Record<string, string> = {};
  const bare: string[] = [];
  for (const t of tokenize(args)) {
    if (t.key === undefined) {
      bare.push(t.value);
      continue;
    }
    const name = ALIASES[t.key.toLowerCase()];
    if (!name) throw new UsageError(`Unknown option "${t.key}:". Options are city:, type:, mls:, page:.`, USAGE);
    if (raw[name] !== undefined) throw new UsageError(`${name}: given twice.`, USAGE);
    raw[name] = t.value;
  }
  // A bare word is the common mistake for a city (`/listings Austin`): take it as one.
  if (bare.length > 0) {
    if (raw.city !== undefined)
      throw new UsageError(`Unexpected "${bare.join(' ')}": write options as name:value.`, USAGE);
    raw.city = bare.join(' ');
  }
  const parsed = parseArgs(argsSchema, raw, USAGE);
  const q: ListingsQuery = { page: parsed.page ?? 1 };
  if (parsed.city) q.city = parsed.city;
  if (parsed.type) q.saleType = parsed.type;
  if (parsed.mls) q.mls = parsed.mls;
  return q;
}

/** Button value: page, sale type and the filters, compact (Discord custom ids hold 100 characters). */
export function encodeListingsQuery(q: ListingsQuery): string {
  const t = q.saleType === 'for_sale' ? 's' : q.saleType === 'for_rent' ? 'r' : '';
  return [String(q.page), t, encodeURIComponent(q.city ?? ''), encodeURIComponent(q.mls ?? '')].join('|');
}

export function decodeListingsQuery(value: string): ListingsQuery | undefined {
  const [p, t, c, m] = value.split('|');
  const page = Number(p);
  if (!Number.isInteger(page) || page < 1) return undefined;
  const q: ListingsQuery = { page };
  if (t === 's') q.saleType = 'for_sale';
  if (t === 'r') q.saleType = 'for_rent';
  try {
    if (c) q.city = decodeURIComponent(c);
    if (m) q.mls = decodeURIComponent(m);
  } catch {
    return undefined;
  }
  return q;
}

function describeFilters(q: ListingFilters): string {
  const parts: string[] = [];
  if (q.city) parts.push(`in ${q.city}`);
  if (q.saleType) parts.push(q.saleType === 'for_sale' ? 'for sale' : 'for rent');
  if (q.mls) parts.push(`MLS ${q.mls}`);
  return parts.length > 0 ? ` ${parts.join(', ')}` : '';
}

/** A page of listings as a table to compare them by: one row per listing, every figure in words. */
function listingsTable(items: Listing[], caption: string): DataTable {
  const cell = (v: string | undefined): string => (v && v.trim() !== '' ? v : '—');
  return {
    caption,
    header: ['Address', 'Status', 'Price', 'Beds / baths', 'Area', 'City', 'MLS'],
    rows: items.map((l) => [
      cell(listingTitle(l)),
      statusBadge(l),
      cell(formatPrice(l)),
      cell(formatBedsBaths(l)),
      cell(formatArea(l)),
      cell(l.city),
      cell(l.mlsNumber),
    ]),
  };
}

/** The message of one page: header, cards (and the page as a table), Prev/Next. */
export async function listingsMessage(
  ctx: TenantScope,
  q: ListingsQuery,
  perPage = CARDS_PER_PAGE,
): Promise<OutMessage> {
  const res = await fetchListingPage(ctx, q, q.page, perPage);
  const filters = describeFilters(q);
  if (res.total === 0) {
    const hint =
      q.city || q.saleType || q.mls ? ' Try fewer filters, another city, or `/listings` with no filters.' : '';
    return { text: `No listings found${filters}.${hint}` };
  }
  if (res.items.length === 0) {
    return {
      text: `Page ${q.page} is past the last page: there are ${res.pages} page${res.pages === 1 ? '' : 's'} of listings${filters}. Try page:${res.pages}.`,
    };
  }
  const buttons: Button[] = [];
  if (q.page > 1)
    buttons.push({
      action: LISTINGS_PAGE_ACTION,
      label: '◀ Prev',
      value: encodeListingsQuery({ ...q, page: q.page - 1 }),
    });
  if (q.page < res.pages)
    buttons.push({
      action: LISTINGS_PAGE_ACTION,
      label: 'Next ▶',
      value: encodeListingsQuery({ ...q, page: q.page + 1 }),
    });
  const msg: OutMessage = {
    text: `Listings${filters}: page ${q.page} of ${res.pages} (${res.total} listing${res.total === 1 ? '' : 's'})`,
    cards: res.items.map((l) => listingCard(l, { actions: listingActions(l) })),
    table: listingsTable(res.items, `Listings${filters}, page ${q.page} of ${res.pages}`),
  };
  if (buttons.length > 0) msg.buttons = buttons;
  return msg;
}

async function showPage(ctx: TenantScope, inv: Invocation, value: string): Promise<void> {
  await guarded(ctx, inv, 'listings', async () => {
    const q = decodeListingsQuery(value);
    if (!q) throw new UsageError('That page button is out of date; run /listings again.', USAGE);
    const msg = await listingsMessage(ctx, q, inv.surface.limits.cardsPerPage);
    if (inv.update) await inv.update(msg);
    else await inv.reply(msg);
  });
}

export const listingsCommand = guardedCommand('listings', {
  async body(ctx, inv, args) {
    await inv.reply(await listingsMessage(ctx, parseListingsArgs(args), inv.surface.limits.cardsPerPage));
  },
  actions: { [LISTINGS_PAGE_ACTION]: showPage },
});
