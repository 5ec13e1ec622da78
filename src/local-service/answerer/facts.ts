import { type ListingData, listingPrice, normCity } from '../listings/listing-data';
import type { FactFilter, Feature, NumericFact } from './query-model';

/** A numeric fact of a listing, or undefined when the listing does not hold it. */
export function numberOf(d: ListingData, fact: NumericFact): number | undefined {
  switch (fact) {
    case 'price':
      return listingPrice(d);
    case 'ppsf': {
      const price = listingPrice(d);
      return price !== undefined && d.BuildingArea > 0 ? price / d.BuildingArea : undefined;
    }
    case 'area':
      return d.BuildingArea;
    case 'lot':
      return d.LotArea;
    case 'year':
      return d.YearBuilt;
    case 'dom':
      return d.DaysOnMarket;
    case 'parking':
      return d.ParkingSpots;
    case 'beds':
      return d.Bedrooms;
    case 'baths':
      return d.Bathrooms;
    case 'hoa':
      // A listing without an HOA amount has none to pay: the form asks for it whenever there is one.
      return d.HOAMonth ?? 0;
  }
}

/** Whether a listing has a feature, with the listing's own words that say so (an extra field, or a sentence). */
export type FeatureState = { has: 'yes' | 'no'; evidence: string; fromField: boolean } | { has: 'unknown' };

const NEGATIVE = /^\s*(no|none|not allowed|false|0|n\/a|prohibited|no permitid[oa]s?|no se permiten)\b/i;
const PET_FIELD = /\b(pets?|pet policy|mascotas?|animals?)\b/i;
const NO_PETS = /\b(no pets?|not allowed|no animals|prohibited|no se permiten|no permitid)/i;

/** The listing's extra fields and description, where a feature may be said. */
function fields(d: ListingData): { key: string; value: string }[] {
  return (d.ExtensionColumn ?? []).map((e) => ({ key: e.Key, value: e.value }));
}

/**
 * Whether a listing has a feature, from what it says: an extra field named for it, the field that
 * holds its kind (heating), or the words of its description and fields. Silence is "unknown", never "no".
 */
export function featureOf(d: ListingData, f: Feature): FeatureState {
  const all = fields(d);
  if (f.field) {
    const holder = all.find((e) => f.field?.test(e.key));
    if (holder) {
      const evidence = `${holder.key}: ${holder.value}`;
      if (PET_FIELD.test(holder.key)) return petPolicy(holder.value, f, evidence);
      return {
        has: f.words.test(holder.value) && !NEGATIVE.test(holder.value) ? 'yes' : 'no',
        evidence,
        fromField: true,
      };
    }
  }
  const named = all.find((e) => f.words.test(e.key));
  if (named)
    return {
      has: NEGATIVE.test(named.value) ? 'no' : 'yes',
      evidence: `${named.key}: ${named.value}`,
      fromField: true,
    };
  const said = all.find((e) => f.words.test(e.value));
  if (said) return { has: 'yes', evidence: `${said.key}: ${said.value}`, fromField: true };
  const sentence = (d.Description ?? '').split(/(?<=[.!?])\s+/).find((s) => f.words.test(s));
  if (sentence) {
    const negated = new RegExp(`\\bno\\s+(${f.words.source})`, 'i').test(sentence);
    return { has: negated ? 'no' : 'yes', evidence: sentence.trim(), fromField: false };
  }
  return { has: 'unknown' };
}

/** "Cats and dogs allowed", "No pets", "Allowed": whether the kind asked for (pets, dogs, cats) may come. */
function petPolicy(value: string, f: Feature, evidence: string): FeatureState {
  if (NO_PETS.test(value) || NEGATIVE.test(value)) return { has: 'no', evidence, fromField: true };
  const kind = /dog|perro/i.test(f.label) ? /dog|perro/i : /cat|gato/i.test(f.label) ? /cat|gato/i : undefined;
  // "Cats allowed" says nothing of dogs; "Allowed" or "Pets allowed" covers every pet.
  if (kind && /\b(cats?|dogs?|gatos?|perros?)\b/i.test(value) && !kind.test(value))
    return { has: 'no', evidence, fromField: true };
  return { has: 'yes', evidence, fromField: true };
}

/**
 * Whether a listing passes a filter; a feature filter passes only on a "yes" the listing states (its
 * negation on anything but a stated "yes").
 */
export function passes(d: ListingData, f: FactFilter): boolean {
  if (f.kind === 'feature') return (featureOf(d, f.feature).has === 'yes') !== (f.not === true);
  if (f.kind === 'exclude') {
    if (f.what === 'type') return d.PropertyType.toLowerCase() !== f.value.toLowerCase();
    if (f.what === 'city') return normCity(d.City) !== normCity(f.value);
    return !(d.ExtensionColumn ?? []).some(
      (e) => /neighbou?rhood/i.test(e.Key) && e.value.toLowerCase() === f.value.toLowerCase(),
    );
  }
  if (f.kind === 'zip') return (d.ZIP ?? '').startsWith(f.zip);
  if (f.kind === 'other') return d.MLSNumber !== f.mls;
  if (f.kind === 'near') return distanceTo(d, f) <= f.miles;
  const v = numberOf(d, f.fact);
  if (v === undefined) return false;
  return (f.min === undefined || v >= f.min) && (f.max === undefined || v <= f.max);
}

/** Miles from a listing to a point (haversine); a listing without coordinates is infinitely far. */
export function distanceTo(d: ListingData, p: { lat: number; lon: number }): number {
  if (d.Latitude === undefined || d.Longitude === undefined) return Number.POSITIVE_INFINITY;
  return milesBetween(d.Latitude, d.Longitude, p.lat, p.lon);
}

export function milesBetween(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = (x: number) => (x * Math.PI) / 180;
  const a =
    Math.sin(rad(lat2 - lat1) / 2) ** 2 +
    Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lon2 - lon1) / 2) ** 2;
  return 3958.8 * 2 * Math.atan2(Math.sqrt(a), Math.sqrt(1 - a));
}
