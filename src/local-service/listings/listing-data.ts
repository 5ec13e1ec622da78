import type { ListingInput } from '../../service/schemas';

/**
 * A listing as the service keeps it: the members of a create/update body (section 2.3) without the
 * chatbot id and the key. Stored as JSON so that fields the wire form drops (AreaUnit, Location ...)
 * survive an update round trip.
 */
export type ListingData = Omit<ListingInput, 'SerialNumber'>;

/** The price a person means: the sale price of a sale, the monthly rent of a rental. */
export function listingPrice(d: ListingData): number | undefined {
  return d.SaleType === 'for_rent' ? (d.RentPrice ?? d.SalePrice) : (d.SalePrice ?? d.EstimatePrice);
}

export function normCity(city: string | undefined): string {
  return (city ?? '').trim().toLowerCase();
}
