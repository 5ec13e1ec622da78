/** A listing as a rich link preview (Slack's Work Object): see ListingPreview in core/content.ts. */
import type { Listing } from '../../service/schemas/listings';
import type { ListingPreview } from '../content';
import { LINK_TALK_ACTION, LINK_VIEWING_ACTION } from './card-actions';
import { listingDetailCard } from './detail';
import { formatArea, formatBedsBaths, formatPrice, listingTitle, statusBadge } from './format';

/** The first words of a description, whole words, within `max`. */
function shortText(s: string | undefined, max = 300): string | undefined {
  const flat = s?.replace(/\s+/g, ' ').trim();
  if (!flat) return undefined;
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 1))}…`;
}

export function listingPreview(l: Listing): ListingPreview {
  const id = String(l.id);
  const preview: ListingPreview = {
    id,
    url: l.url ?? '',
    title: listingTitle(l),
    status: statusBadge(l),
    detail: listingDetailCard(l),
    actions: [
      { action: LINK_VIEWING_ACTION, label: 'Ask about a viewing', value: id, style: 'primary' },
      { action: LINK_TALK_ACTION, label: 'Talk to a human', value: id },
    ],
  };
  const price = formatPrice(l);
  const bedsBaths = formatBedsBaths(l);
  const area = formatArea(l);
  const description = shortText(l.description);
  if (price) preview.price = price;
  if (bedsBaths) preview.bedsBaths = bedsBaths;
  if (area) preview.area = area;
  if (l.city) preview.city = l.city;
  if (l.mlsNumber) preview.mls = l.mlsNumber;
  if (l.images[0]) preview.photo = l.images[0];
  if (description) preview.description = description;
  return preview;
}
