/**
 * The buttons a compact listing card carries (Details, Ask about a viewing), and the cards of the
 * listings an answer names. Below commands/ and conversations/, so both use them without importing
 * each other: the commands that answer the buttons (listing.ts, handoff.ts) import their ids from here.
 */
import type { Listing } from '../../service/schemas/listings';
import type { Button, Card } from '../surface';
import { encodeKey, type ListingKey } from './find';
import { listingCard, listingTitle } from './format';
import { listingsNamedIn } from './named';

export const LISTING_SHOW_ACTION = 'listing.show';

/** The listing card's "Ask about a viewing" button (its value names the listing; handoff.ts answers it). */
export const VIEWING_ACTION = 'handoff.viewing';

/** "Talk to a human" about a listing, from its link's preview (its value names the listing; handoff.ts answers it). */
export const LISTING_TALK_ACTION = 'handoff.listing';

/**
 * A listing link's actions (its Work Object's flexpane and classic unfurl): the value is the listing's
 * id, not its name, so a press is answered only for a listing of the presser's own tenant's chatbot
 * (a value copied from another workspace's unfurl names no listing here, and is refused).
 */
export const LINK_VIEWING_ACTION = 'handoff.linkViewing';
export const LINK_TALK_ACTION = 'handoff.linkTalk';

/** How a listing is named on a viewing request (the button's value: at most 80 characters). */
export function viewingName(l: Listing): string {
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

/** The compact cards of the listings an answer names (with its final edit). */
export function cardsNamedIn(answer: string, listings: readonly Listing[]): Card[] {
  return listingsNamedIn(answer, listings).map((l) => listingCard(l, { actions: listingActions(l) }));
}
