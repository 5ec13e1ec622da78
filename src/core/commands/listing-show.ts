/**
 * One listing shown in full (`/listing show`, and a compact card's Details button), and the
 * buttons a compact listing card carries (Details, Ask about a viewing).
 */
import type { Listing } from '../../service/schemas/listings';
import type { CoreContext } from '../context';
import { noteOpenedListing } from '../handoff/opened';
import { decodeKey, describeKey, encodeKey, findListings, type ListingKey } from '../listings/find';
import { listingDetailCard } from '../listings/detail';
import { listingCard, listingTitle } from '../listings/format';
import { listingsNamedIn } from '../listings/named';
import type { Button, Card, Invocation } from '../surface';
import { VIEWING_ACTION } from './handoff';
import { RefusalError, guarded } from './respond';

export const LISTING_SHOW_ACTION = 'listing.show';
export const LISTING_EDIT = 'listing.edit';

/** How a listing is named on a viewing request (the button's value: at most 80 characters). */
function viewingName(l: Listing): string {
  return `${listingTitle(l)}${l.mlsNumber ? ` (MLS ${l.mlsNumber})` : ''}`.slice(0, 80);
}

/** The key a card's buttons carry: the listing's id (every listing has one). */
function keyOf(l: Listing): ListingKey {
  return { keyType: 'ListingId', key: String(l.id) };
}

/** A compact card's buttons: the full listing, and a viewing (a handoff naming the listing). */
export function listingActions(l: Listing): Button[] {
  return [
    { action: LISTING_SHOW_ACTION, label: 'Details', value: encodeKey(keyOf(l)) },
    { action: VIEWING_ACTION, label: 'Ask about a viewing', value: viewingName(l), style: 'primary' },
  ];
}

/** The listing `key` names, in full; `ephemeral` for a button's answer (only the clicker sees it). */
export async function showListing(
  ctx: CoreContext,
  inv: Invocation,
  key: ListingKey,
  opts: { ephemeral?: boolean } = {},
): Promise<void> {
  const found = await findListings(ctx, key);
  const first = found[0];
  if (!first)
    throw new RefusalError(`No listing matches ${describeKey(key)}. Check the key, or find it with /listings.`);
  const more = found.length > 1 ? `${found.length} listings match ${describeKey(key)}; showing the first.` : '';
  // Next steps: a viewing for anyone, Edit for admins (the button checks again when pressed).
  const buttons: Button[] = [
    { action: VIEWING_ACTION, label: 'Ask about a viewing', value: viewingName(first), style: 'primary' },
  ];
  if (inv.actor.isAdmin) buttons.push({ action: LISTING_EDIT, label: 'Edit', value: encodeKey(key) });
  await inv.reply(
    { text: more, cards: [listingDetailCard(first)], buttons },
    opts.ephemeral ? { ephemeral: true } : undefined,
  );
  // A card the user opened counts in the lead summary of their next handoff.
  await noteOpenedListing(
    ctx.store,
    inv.surface.name,
    inv.actor.id,
    first.mlsNumber ? `MLS ${first.mlsNumber}` : listingTitle(first),
    ctx.now(),
  );
}

/** A compact card's Details button. */
export async function onDetailsPressed(ctx: CoreContext, inv: Invocation, value: string): Promise<void> {
  await guarded(ctx, inv, 'listing', async () => {
    const key = decodeKey(value);
    if (!key) throw new RefusalError('That button is out of date; find the listing again with /listings.');
    await showListing(ctx, inv, key, { ephemeral: true });
  });
}

/** The compact cards of the listings an answer names (with its final edit). */
export function cardsNamedIn(answer: string, listings: readonly Listing[]): Card[] {
  return listingsNamedIn(answer, listings).map((l) => listingCard(l, { actions: listingActions(l) }));
}
