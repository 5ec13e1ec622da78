/**
 * One listing shown in full (`/listing show`, and a compact card's Details button); the buttons a
 * compact card carries are listings/card-actions.ts's.
 */
import type { TenantScope } from '../context';
import { noteOpenedListing } from '../handoff/opened';
import { VIEWING_ACTION, viewingName } from '../listings/card-actions';
import { decodeKey, describeKey, encodeKey, findListings, type ListingKey } from '../listings/find';
import { listingDetailCard } from '../listings/detail';
import { listingTitle } from '../listings/format';
import type { Button, Invocation } from '../surface';
import { RefusalError, guarded } from './respond';

export const LISTING_EDIT = 'listing.edit';

/** The listing `key` names, in full; `ephemeral` for a button's answer (only the clicker sees it). */
export async function showListing(
  ctx: TenantScope,
  inv: Invocation,
  key: ListingKey,
  opts: { ephemeral?: boolean } = {},
): Promise<void> {
  const found = await findListings(ctx, key);
  const first = found[0];
  if (!first)
    throw new RefusalError(`No listing matches ${describeKey(key)}. Check the key, or find it with /listings.`);
  const more = found.length > 1 ? `${found.length} listings match ${describeKey(key)}; showing the first.` : '';
  // Next steps: a viewing for anyone, Edit for admins of the chatbot's owner (the button checks again when pressed).
  const buttons: Button[] = [
    { action: VIEWING_ACTION, label: 'Ask about a viewing', value: viewingName(first), style: 'primary' },
  ];
  if (inv.actor.isAdmin && ctx.chatbot.kind !== 'shared')
    buttons.push({ action: LISTING_EDIT, label: 'Edit', value: encodeKey(key) });
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
export async function onDetailsPressed(ctx: TenantScope, inv: Invocation, value: string): Promise<void> {
  await guarded(ctx, inv, 'listing', async () => {
    const key = decodeKey(value);
    if (!key) throw new RefusalError('That button is out of date; find the listing again with /listings.');
    await showListing(ctx, inv, key, { ephemeral: true });
  });
}
