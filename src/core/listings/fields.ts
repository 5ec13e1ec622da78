/**
 * The fields of a listing body (section 2.3) as people type them: in `Field:value` pairs or in a
 * form. Turns text into the body's value kinds, then lets the client's schema judge them, so every
 * error names its field.
 */
import {
  AREA_UNITS,
  LISTING_FIELD_NAMES,
  LISTING_STATUSES,
  PROPERTY_TYPES,
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

/**
 * Every field of section 2.3 but SerialNumber, in the order an agent fills them (the home itself
 * first: address, price, type, beds, baths), grouped in fives so a Discord modal holds one group.
 */
export const LISTING_FIELDS: readonly ListingFieldDef[] = [
  f('Address', 'Street address', 'string', false, 'The home', { hint: 'e.g. 3096 Larimer St' }),
  f('SalePrice', 'Asking price', 'number', false, 'The home', { hint: 'for a sale, in dollars, e.g. $450,000' }),
  f('PropertyType', 'Property type', 'enum', true, 'The home', { options: PROPERTY_TYPES }),
  f('Bedrooms', 'Bedrooms', 'number', true, 'The home', { hint: 'e.g. 3' }),
  f('Bathrooms', 'Bathrooms', 'number', true, 'The home', { hint: 'e.g. 2.5 (a half bath counts 0.5)' }),
  f('City', 'City', 'string', false, 'Where and how it is offered', { hint: 'e.g. Denver' }),
  f('State', 'State', 'string', false, 'Where and how it is offered', { hint: 'e.g. CO' }),
  f('ZIP', 'ZIP code', 'string', false, 'Where and how it is offered', { hint: 'e.g. 80202' }),
  f('SaleType', 'Offered', 'enum', true, 'Where and how it is offered', { options: SALE_TYPES }),
  f('Status', 'Status', 'enum', true, 'Where and how it is offered', { options: LISTING_STATUSES }),
  f('BuildingArea', 'Living area', 'number', true, 'Size', { hint: 'square feet, e.g. 1,850' }),
  f('AreaUnit', 'Area measured in', 'enum', true, 'Size', { options: AREA_UNITS }),
  f('LotArea', 'Lot size', 'number', true, 'Size', { hint: 'square feet, e.g. 5,000 (0 for none)' }),
  f('YearBuilt', 'Year built', 'number', true, 'Size', { hint: 'e.g. 1998' }),
  f('ParkingSpots', 'Parking spots', 'number', true, 'Size', { hint: 'e.g. 2' }),
  f('MLSNumber', 'MLS number', 'string', true, 'Listing', { hint: 'e.g. DEN240007' }),
  f('Url', 'Listing page', 'string', true, 'Listing', { hint: 'the web page of the listing, https://...' }),
  f('DaysOnMarket', 'Days on market', 'number', true, 'Listing', { hint: 'days, e.g. 12 (0 if new)' }),
  f('Tours', 'Tours', 'enum', false, 'Listing', { options: TOURS }),
  f('Description', 'Description', 'textarea', false, 'Listing', { hint: 'what a buyer or tenant should know' }),
  f('RentPrice', 'Monthly rent', 'number', false, 'Rent and costs', {
    hint: 'for a rental, dollars per month, e.g. $2,400',
  }),
  f('DepositFee', 'Deposit', 'number', false, 'Rent and costs', { hint: 'in dollars, e.g. $2,400' }),
  f('SpaceType', 'Rented as', 'enum', false, 'Rent and costs', { options: SPACE_TYPES }),
  f('HOAMonth', 'HOA dues', 'number', false, 'Rent and costs', { hint: 'dollars per month, e.g. $350' }),
  f('CurrencySymbol', 'Currency', 'string', true, 'Rent and costs', { hint: 'e.g. $' }),
  f('Images', 'Photos', 'images', false, 'Photos and facts', { hint: 'photo links, one per line' }),
  f('ExtensionColumn', 'More facts', 'extension', false, 'Photos and facts', {
    hint: 'one per line, e.g. Heating: Gas',
  }),
  f('Location', 'Neighborhood', 'string', false, 'Photos and facts', { hint: 'e.g. LoDo, Denver' }),
  f('EstimatePrice', 'Estimated value', 'number', false, 'Photos and facts', { hint: 'in dollars, e.g. $460,000' }),
  f('UnitAreaPrice', 'Price per square foot', 'number', false, 'Photos and facts', {
    hint: 'dollars per square foot, e.g. $245',
  }),
  f('Latitude', 'Latitude', 'number', false, 'Map', { hint: 'e.g. 39.7392' }),
  f('Longitude', 'Longitude', 'number', false, 'Map', { hint: 'e.g. -104.9903' }),
];

/** Enumeration values in words (the value sent stays the wire value). */
const OPTION_WORDS: Record<string, string> = {
  for_sale: 'For sale',
  for_rent: 'For rent',
  Active: 'Active',
  PreOnMarket: 'Coming soon',
  Sold: 'Sold',
  OpenHouse: 'Open house',
  '3D': '3D tour',
  'Square Feet': 'Square feet',
  'Square Meters': 'Square meters',
  'Entire place': 'Entire place',
  Room: 'A room',
};

export function optionLabel(value: string): string {
  return OPTION_WORDS[value] ?? value;
}

/** What a new listing starts with: the common case, so most agents only confirm it. */
const CREATE_DEFAULTS: Partial<Record<ListingFieldName, string>> = {
  SaleType: 'for_sale',
  Status: 'Active',
  CurrencySymbol: '$',
  AreaUnit: 'Square Feet',
  DaysOnMarket: '0',
};

const BY_LOWER = new Map(LISTING_FIELDS.map((d) => [d.name.toLowerCase(), d]));

export function findListingField(name: string): ListingFieldDef | undefined {
  return BY_LOWER.get(name.toLowerCase());
}

export function listingFieldNames(): string {
  return LISTING_FIELD_NAMES.filter((n) => n !== 'SerialNumber').join(', ');
}

const squash = (s: string): string => s.toLowerCase().replace(/[\s_-]+/g, '');

/** Matches an enumeration value loosely ("for sale", "FOR_SALE", "square feet", "Coming soon"). */
export function matchOption(options: readonly string[], raw: string): string | undefined {
  const want = squash(raw);
  return options.find((o) => squash(o) === want || squash(optionLabel(o)) === want);
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
      return cleaned !== '' && Number.isFinite(n)
        ? { value: n }
        : { error: `${def.name} must be a number (got "${text}")` };
    }
    case 'enum':
      return { value: matchOption(def.options ?? [], text) ?? text };
    case 'images':
      return { value: text.split(/[\s,]+/).filter((s) => s !== '') };
    case 'extension': {
      const items: Array<{ Key: string; value: string }> = [];
      for (const line of text
        .split(/[\n;]+/)
        .map((l) => l.trim())
        .filter((l) => l !== '')) {
        // "Heating: Gas" or "Heating=Gas".
        const eq = /[=:]/.exec(line)?.index ?? -1;
        if (eq <= 0) return { error: `More facts: write one fact per line, like Heating: Gas (got "${line}")` };
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
export function coerceListingValues(raw: Record<string, string>): {
  values: Partial<Record<ListingFieldName, unknown>>;
  errors: FieldErrors;
} {
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

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A form's errors about enumerations name the options in words ("must be one of Active, Coming
 * soon, Sold"), as the form shows them (the words are accepted: matchOption). `Field:value` pairs
 * keep the wire values, which is what a pair is typed with.
 */
export function formErrorsInWords(errors: FieldErrors): FieldErrors {
  const out: FieldErrors = {};
  for (const [field, message] of Object.entries(errors)) {
    const options = findListingField(field)?.options ?? [];
    let text = message;
    for (const o of [...options].sort((a, b) => b.length - a.length))
      text = text.replace(new RegExp(`(?<![\\w-])${escapeRegExp(o)}(?![\\w-])`, 'g'), optionLabel(o));
    out[field] = text;
  }
  return out;
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
    SaleType: l.saleType === undefined ? undefined : (matchOption(SALE_TYPES, l.saleType) ?? l.saleType),
    Status: l.status === undefined ? undefined : (matchOption(LISTING_STATUSES, l.status) ?? l.status),
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
    Images: l.images.length > 0 ? l.images.join('\n') : undefined,
    ExtensionColumn:
      l.extensionColumns.length > 0 ? l.extensionColumns.map((e) => `${e.key}: ${e.value}`).join('\n') : undefined,
  };
  for (const k of Object.keys(out) as ListingFieldName[]) if (out[k] === undefined) delete out[k];
  return out;
}

/** The form fields of a listing, prefilled from `initial` (a new listing: from the usual defaults). */
export function listingFormFields(initial: Partial<Record<ListingFieldName, string>> = CREATE_DEFAULTS): FormField[] {
  return LISTING_FIELDS.map((d) => {
    const field: FormField = {
      name: d.name,
      label: d.label,
      kind: d.kind === 'enum' ? 'select' : d.kind === 'number' ? 'number' : d.kind === 'string' ? 'text' : 'textarea',
      required: d.required,
      group: d.group,
    };
    const init = initial[d.name];
    // A value outside the list (a property type the service took as typed) stays offered, as it is.
    const options = d.options && init !== undefined && !d.options.includes(init) ? [...d.options, init] : d.options;
    if (options) field.options = options.map((o) => ({ value: o, label: optionLabel(o) }));
    if (d.hint) field.hint = d.hint;
    if (init !== undefined) field.initial = init;
    return field;
  });
}
