/**
 * The fields of a listing body (section 2.3) as people type them: in `Field:value` pairs or in a
 * form. Turns text into the body's value kinds, then lets the client's schema judge them, so every
 * error names its field.
 */
import {
  AREA_UNITS,
  LISTING_FIELD_NAMES,
  LISTING_STATUSES,
  SALE_TYPES,
  SPACE_TYPES,
  TOURS,
  listingCreateSchema,
  type Listing,
  type ListingInput,
} from '../../service/schemas/listings';
import type { FormField } from '../surface';

export type ListingFieldName = Exclude<keyof ListingInput, 'SerialNumber'>;
type FieldKind = 'string' | 'textarea' | 'number' | 'enum' | 'images' | 'extension';

export interface ListingFieldDef {
  name: ListingFieldName;
  label: string;
  kind: FieldKind;
  /** Required on create (section 2.3). */
  required: boolean;
  options?: readonly string[];
  /** Form group: at most 5 fields each, so a Discord modal holds one group. */
  group: string;
  hint?: string;
}

const f = (
  name: ListingFieldName,
  label: string,
  kind: FieldKind,
  required: boolean,
  group: string,
  extra: Partial<Pick<ListingFieldDef, 'options' | 'hint'>> = {},
): ListingFieldDef => ({ name, label, kind, required, group, ...extra });

/** Every field of section 2.3 but SerialNumber, grouped in fives. */
export const LISTING_FIELDS: readonly ListingFieldDef[] = [
  f('SaleType', 'Sale type', 'enum', true, 'basics', { options: SALE_TYPES }),
  f('Status', 'Status', 'enum', true, 'basics', { options: LISTING_STATUSES }),
  f('PropertyType', 'Property type', 'string', true, 'basics', { hint: 'e.g. Single Family, Condo' }),
  f('MLSNumber', 'MLS number', 'string', true, 'basics'),
  f('Url', 'Listing URL', 'string', true, 'basics', { hint: 'https://...' }),
  f('Bedrooms', 'Bedrooms', 'number', true, 'size'),
  f('Bathrooms', 'Bathrooms', 'number', true, 'size', { hint: 'fractions allowed, e.g. 2.5' }),
  f('BuildingArea', 'Building area', 'number', true, 'size'),
  f('LotArea', 'Lot area', 'number', true, 'size'),
  f('AreaUnit', 'Area unit', 'enum', true, 'size', { options: AREA_UNITS }),
  f('YearBuilt', 'Year built', 'number', true, 'details'),
  f('DaysOnMarket', 'Days on market', 'number', true, 'details'),
  f('ParkingSpots', 'Parking spots', 'number', true, 'details'),
  f('Tours', 'Tours', 'enum', false, 'details', { options: TOURS }),
  f('SpaceType', 'Space type', 'enum', false, 'details', { options: SPACE_TYPES }),
  f('CurrencySymbol', 'Currency symbol', 'string', true, 'price', { hint: 'e.g. $' }),
  f('SalePrice', 'Sale price', 'number', false, 'price'),
  f('RentPrice', 'Monthly rent', 'number', false, 'price'),
  f('DepositFee', 'Deposit', 'number', false, 'price'),
  f('HOAMonth', 'HOA per month', 'number', false, 'price'),
  f('Address', 'Street address', 'string', false, 'location'),
  f('City', 'City', 'string', false, 'location'),
  f('State', 'State', 'string', false, 'location'),
  f('ZIP', 'ZIP', 'string', false, 'location'),
  f('Location', 'Location description', 'string', false, 'location'),
  f('EstimatePrice', 'Estimated price', 'number', false, 'valuation and map'),
  f('UnitAreaPrice', 'Price per unit area', 'number', false, 'valuation and map'),
  f('Latitude', 'Latitude', 'number', false, 'valuation and map'),
  f('Longitude', 'Longitude', 'number', false, 'valuation and map'),
  f('Description', 'Description', 'textarea', false, 'more'),
  f('Images', 'Image URLs', 'images', false, 'more', { hint: 'comma-separated URLs' }),
  f('ExtensionColumn', 'More facts', 'extension', false, 'more', { hint: 'one Key=value per line' }),
];

const BY_LOWER = new Map(LISTING_FIELDS.map((d) => [d.name.toLowerCase(), d]));

export function findListingField(name: string): ListingFieldDef | undefined {
  return BY_LOWER.get(name.toLowerCase());
}

export function listingFieldNames(): string {
  return LISTING_FIELD_NAMES.filter((n) => n !== 'SerialNumber').join(', ');
}

const squash = (s: string): string => s.toLowerCase().replace(/[\s_-]+/g, '');

/** Matches an enumeration value loosely ("for sale", "FOR_SALE", "square feet"). */
export function matchOption(options: readonly string[], raw: string): string | undefined {
  const want = squash(raw);
  return options.find((o) => squash(o) === want);
}

export type FieldErrors = Record<string, string>;

/**
 * Text to a body value. `undefined` means "not given" (empty text). Text that is not the field's
 * kind is returned unchanged so the schema reports it with the field's own message; the few
 * shapes the schema can't see (an ExtensionColumn line without '=') are reported here.
 */
function coerce(def: ListingFieldDef, raw: string): { value?: unknown; error?: string } {
  const text = raw.trim();
  if (text === '') return {};
  switch (def.kind) {
    case 'number': {
      const cleaned = text.replace(/[,$€£\s]/g, '');
      const n = Number(cleaned);
      return cleaned !== '' && Number.isFinite(n) ? { value: n } : { error: `${def.name} must be a number (got "${text}")` };
    }
    case 'enum':
      return { value: matchOption(def.options ?? [], text) ?? text };
    case 'images':
      return { value: text.split(/[\s,]+/).filter((s) => s !== '') };
    case 'extension': {
      const items: Array<{ Key: string; value: string }> = [];
      for (const line of text.split(/[\n;]+/).map((l) => l.trim()).filter((l) => l !== '')) {
        const eq = line.indexOf('=');
        if (eq <= 0) return { error: `ExtensionColumn lines must look like Key=value (got "${line}")` };
        items.push({ Key: line.slice(0, eq).trim(), value: line.slice(eq + 1).trim() });
      }
      return { value: items };
    }
    case 'string':
    case 'textarea':
      return { value: raw.trim() };
  }
}

/** Raw text per field name (pairs or form values) to typed values, with per-field errors. */
export function coerceListingValues(raw: Record<string, string>): { values: Partial<Record<ListingFieldName, unknown>>; errors: FieldErrors } {
  const values: Partial<Record<ListingFieldName, unknown>> = {};
  const errors: FieldErrors = {};
  for (const [name, text] of Object.entries(raw)) {
    const def = findListingField(name);
    if (!def) {
      errors[name] = `unknown field ${name}; fields are: ${listingFieldNames()}`;
      continue;
    }
    const { value, error } = coerce(def, text);
    if (error) errors[def.name] = error;
    else if (value !== undefined) values[def.name] = value;
  }
  return { values, errors };
}

/** Validates a whole body with the client's schema; errors keyed by top-level field. */
export function validateListing(
  chatbotId: string,
  values: Partial<Record<ListingFieldName, unknown>>,
): { ok: true; body: ListingInput } | { ok: false; errors: FieldErrors } {
  const result = listingCreateSchema.safeParse({ SerialNumber: chatbotId, ...values });
  if (result.success) return { ok: true, body: result.data };
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : String(issue.path[0] ?? 'SaleType');
    const msg = issue.message.includes(field) ? issue.message : `${field}: ${issue.message}`;
    errors[field] = errors[field] ? `${errors[field]}; ${msg}` : msg;
  }
  return { ok: false, errors };
}

/** "Field: problem" lines, for a text reply. */
export function describeFieldErrors(errors: FieldErrors): string {
  return Object.values(errors)
    .map((m) => `• ${m}`)
    .join('\n');
}

const unitOf = (area: string | undefined): string | undefined =>
  area === undefined ? undefined : AREA_UNITS.find((u) => area.toLowerCase().includes(u.toLowerCase()));

/**
 * A decoded listing as the body's text values (form initial values, the base of an update).
 * The list operation leaves some members out (Location, AreaUnit on some services): those stay unset.
 */
export function listingToText(l: Listing): Partial<Record<ListingFieldName, string>> {
  const n = (v: number | undefined): string | undefined => (v === undefined ? undefined : String(v));
  const out: Partial<Record<ListingFieldName, string>> = {
    SaleType: l.saleType === undefined ? undefined : matchOption(SALE_TYPES, l.saleType) ?? l.saleType,
    Status: l.status === undefined ? undefined : matchOption(LISTING_STATUSES, l.status) ?? l.status,
    PropertyType: l.propertyType,
    MLSNumber: l.mlsNumber,
    Url: l.url,
    Bedrooms: n(l.bedrooms),
    Bathrooms: n(l.bathrooms),
    BuildingArea: n(l.buildingArea),
    LotArea: n(l.lotArea),
    AreaUnit: unitOf(l.area),
    YearBuilt: n(l.yearBuilt),
    DaysOnMarket: n(l.daysOnMarket),
    ParkingSpots: n(l.parkingSpots),
    Tours: l.tours,
    SpaceType: l.spaceType,
    CurrencySymbol: l.currencySymbol,
    SalePrice: n(l.salePrice),
    RentPrice: n(l.rentPrice),
    DepositFee: n(l.depositFee),
    HOAMonth: n(l.hoaMonth),
    Address: l.address,
    City: l.city,
    State: l.state,
    ZIP: l.zip,
    EstimatePrice: n(l.estimatePrice),
    UnitAreaPrice: n(l.unitAreaPrice),
    // The list reports absent coordinates as 0: don't turn "unknown" into a point in the ocean.
    Latitude: l.latitude === undefined || (l.latitude === 0 && l.longitude === 0) ? undefined : String(l.latitude),
    Longitude: l.longitude === undefined || (l.latitude === 0 && l.longitude === 0) ? undefined : String(l.longitude),
    Description: l.description,
    Images: l.images.length > 0 ? l.images.join(', ') : undefined,
    ExtensionColumn: l.extensionColumns.length > 0 ? l.extensionColumns.map((e) => `${e.key}=${e.value}`).join('\n') : undefined,
  };
  for (const k of Object.keys(out) as ListingFieldName[]) if (out[k] === undefined) delete out[k];
  return out;
}

/** The form fields of a listing, prefilled from `initial`. */
export function listingFormFields(initial: Partial<Record<ListingFieldName, string>> = {}): FormField[] {
  return LISTING_FIELDS.map((d) => {
    const field: FormField = {
      name: d.name,
      label: d.label,
      kind: d.kind === 'enum' ? 'select' : d.kind === 'number' ? 'number' : d.kind === 'string' ? 'text' : 'textarea',
      required: d.required,
      group: d.group,
    };
    if (d.options) field.options = d.options.map((o) => ({ value: o, label: o }));
    if (d.hint) field.hint = d.hint;
    const init = initial[d.name];
    if (init !== undefined) field.initial = init;
    return field;
  });
}
