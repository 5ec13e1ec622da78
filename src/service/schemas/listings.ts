/** Real estate listings: create/update/list/delete bodies, list items (wire and decoded). */
import { z } from 'zod';
import { int, nonEmptyStr, nonNegNum, num, oneOf, str } from './fields';

export const SALE_TYPES = ['for_sale', 'for_rent'] as const;
export const LISTING_STATUSES = ['Active', 'PreOnMarket', 'Sold'] as const;
export const AREA_UNITS = ['Square Feet', 'Square Meters'] as const;
export const TOURS = ['OpenHouse', '3D'] as const;
export const SPACE_TYPES = ['Entire place', 'Room'] as const;
export const KEY_TYPES = ['ListingId', 'MLSNumber', 'URL'] as const;
/**
 * The property types a form offers. The service takes any text (PropertyType is a plain string), so
 * a listing of another type keeps it: a form offers that value too, and typed pairs take anything.
 */
export const PROPERTY_TYPES = [
  'House',
  'Condo',
  'Townhouse',
  'Apartment',
  'Multi-family',
  'Land',
  'Commercial',
] as const;

export type SaleType = (typeof SALE_TYPES)[number];
export type KeyType = (typeof KEY_TYPES)[number];

export const extensionColumnItemSchema = z
  .object({ Key: nonEmptyStr('ExtensionColumn Key'), value: str('ExtensionColumn value') })
  .strict();

const listingFields = {
  SerialNumber: nonEmptyStr('SerialNumber'),
  SaleType: oneOf('SaleType', SALE_TYPES),
  Status: oneOf('Status', LISTING_STATUSES),
  CurrencySymbol: nonEmptyStr('CurrencySymbol'),
  PropertyType: nonEmptyStr('PropertyType'),
  Bedrooms: nonNegNum('Bedrooms'),
  Bathrooms: nonNegNum('Bathrooms'),
  Url: nonEmptyStr('Url').url('Url must be a URL like https://example.com/listing/1'),
  MLSNumber: nonEmptyStr('MLSNumber'),
  YearBuilt: int('YearBuilt').min(0, 'YearBuilt must be a year like 1998'),
  DaysOnMarket: nonNegNum('DaysOnMarket'),
  LotArea: nonNegNum('LotArea'),
  BuildingArea: nonNegNum('BuildingArea'),
  AreaUnit: oneOf('AreaUnit', AREA_UNITS),
  Images: z
    .array(str('Images item').url('Images must hold image URLs'), {
      invalid_type_error: 'Images must be an array of image URLs',
    })
    .optional(),
  Tours: oneOf('Tours', TOURS).optional(),
  ParkingSpots: nonNegNum('ParkingSpots'),
  Description: str('Description').optional(),
  ExtensionColumn: z
    .array(extensionColumnItemSchema, { invalid_type_error: 'ExtensionColumn must be an array of {Key, value}' })
    .optional(),
  Location: str('Location').optional(),
  Address: str('Address').optional(),
  City: str('City').optional(),
  State: str('State').optional(),
  ZIP: str('ZIP').optional(),
  Latitude: num('Latitude')
    .min(-90, 'Latitude must be between -90 and 90')
    .max(90, 'Latitude must be between -90 and 90')
    .optional(),
  Longitude: num('Longitude')
    .min(-180, 'Longitude must be between -180 and 180')
    .max(180, 'Longitude must be between -180 and 180')
    .optional(),
  SalePrice: nonNegNum('SalePrice').optional(),
  UnitAreaPrice: nonNegNum('UnitAreaPrice').optional(),
  HOAMonth: nonNegNum('HOAMonth').optional(),
  EstimatePrice: nonNegNum('EstimatePrice').optional(),
  RentPrice: nonNegNum('RentPrice').optional(),
  SpaceType: oneOf('SpaceType', SPACE_TYPES).optional(),
  DepositFee: nonNegNum('DepositFee').optional(),
};

/** RealEstateCreate body (section 2.3). */
export const listingCreateSchema = z.object(listingFields).strict();
export type ListingInput = z.infer<typeof listingCreateSchema>;

/** RealEstateUpdate body: create fields plus Key and KeyType. */
export const listingUpdateSchema = z
  .object({ ...listingFields, Key: nonEmptyStr('Key'), KeyType: oneOf('KeyType', KEY_TYPES) })
  .strict();
export type ListingUpdateInput = z.infer<typeof listingUpdateSchema>;

/** Names of create fields, in interface order (forms, `field:value` parsing). */
export const LISTING_FIELD_NAMES = Object.keys(listingFields) as Array<keyof ListingInput>;

/** RealEstateCreate answers the new listing's identifier. */
export const listingCreateDataSchema = z.union([z.string(), z.number().int().transform(String)]);
/** RealEstateUpdate answers the number of records updated. */
export const listingUpdateDataSchema = z.number().int();

/** RealEstateList body. */
export const listingListRequestSchema = z
  .object({
    SerialNumber: nonEmptyStr('SerialNumber'),
    CityName: str('CityName').optional(),
    SaleType: oneOf('SaleType', SALE_TYPES).optional(),
    MLSNumber: str('MLSNumber').optional(),
    PageNumber: int('PageNumber').min(1, 'PageNumber must be 1 or more').optional(),
    PageSize: int('PageSize').min(1, 'PageSize must be 1 or more').optional(),
  })
  .strict();

/** RealEstateDelete body. */
export const listingDeleteRequestSchema = z
  .object({
    SerialNumber: nonEmptyStr('SerialNumber'),
    Keys: z
      .array(nonEmptyStr('Keys item'), {
        required_error: 'Keys is required',
        invalid_type_error: 'Keys must be an array of listing keys',
      })
      .min(1, 'Keys must name at least one listing'),
    KeyType: oneOf('KeyType', KEY_TYPES),
  })
  .strict();
export const listingDeleteDataSchema = z.object({ SuccessCount: z.number().int() });

// ---- List items as the list operation returns them (section 2.4) ------------------------------------

/** Exact wire item: what the local service produces. Numbers travel as strings, '' when absent. */
export const listingWireItemSchema = z.object({
  ID: z.number().int(),
  PropertyType: z.string(),
  SaleType: z.string(),
  Status: z.string(),
  Images: z.string(),
  CurrencySymbol: z.string(),
  Price: z.string(),
  State: z.string(),
  City: z.string(),
  Address: z.string(),
  ZIP: z.string(),
  Area: z.string(),
  Url: z.string(),
  Tours: z.string(),
  MLSNumber: z.string(),
  Description: z.string(),
  SpaceType: z.string(),
  LATITUDE: z.number(),
  LONGITUDE: z.number(),
  Bathrooms: z.string(),
  Bedrooms: z.string(),
  YearBuilt: z.string(),
  DaysOnMarket: z.string(),
  LotArea: z.string(),
  BuildingArea: z.string(),
  ParkingSpots: z.string(),
  ExtensionColumn: z.string(),
  RentPrice: z.string(),
  DepositFee: z.string(),
  SalePrice: z.string(),
  UnitAreaPrice: z.string(),
  EstimatePrice: z.string(),
  HOAMonth: z.string(),
});
export type ListingWireItem = z.infer<typeof listingWireItemSchema>;

export const listingListDataWireSchema = z.object({
  List: z.array(listingWireItemSchema),
  VirtualCount: z.number().int(),
});

/** A listing as the rest of the bridge sees it: numbers are numbers, absent is undefined. */
export interface Listing {
  id: number;
  propertyType?: string;
  /** As returned; may be a display form (e.g. "For Sale") rather than for_sale. */
  saleType?: string;
  status?: string;
  images: string[];
  currencySymbol?: string;
  /** Numeric when the service sends a number, else undefined (see priceText). */
  price?: number;
  priceText?: string;
  state?: string;
  city?: string;
  address?: string;
  zip?: string;
  area?: string;
  url?: string;
  tours?: string;
  mlsNumber?: string;
  description?: string;
  spaceType?: string;
  latitude?: number;
  longitude?: number;
  bathrooms?: number;
  bedrooms?: number;
  yearBuilt?: number;
  daysOnMarket?: number;
  lotArea?: number;
  buildingArea?: number;
  parkingSpots?: number;
  extensionColumns: Array<{ key: string; value: string }>;
  rentPrice?: number;
  depositFee?: number;
  salePrice?: number;
  unitAreaPrice?: number;
  estimatePrice?: number;
  hoaMonth?: number;
}

const loose = z.union([z.string(), z.number(), z.boolean(), z.null()]).optional();

function text(v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  const s = String(v).trim();
  return s === '' ? undefined : s;
}

function numeric(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  const s = text(v)?.replace(/,/g, '');
  if (s === undefined || !/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(s)) return undefined;
  return Number(s);
}

/** Images: a JSON array string, or comma-separated URLs. */
export function parseImages(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String).filter((s) => s.trim() !== '');
  const s = text(v);
  if (!s) return [];
  if (s.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(s);
      if (Array.isArray(parsed)) return parsed.map((x) => String(x).trim()).filter((x) => x !== '');
    } catch {
      // not JSON after all: fall through to the comma form
    }
  }
  return s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

/** ExtensionColumn: serialized [{Key, value}] (any casing), or a {key: value} object. */
export function parseExtensionColumns(v: unknown): Array<{ key: string; value: string }> {
  let parsed: unknown = v;
  if (typeof v === 'string') {
    if (v.trim() === '') return [];
    try {
      parsed = JSON.parse(v);
    } catch {
      return [];
    }
  }
  if (Array.isArray(parsed)) {
    const out: Array<{ key: string; value: string }> = [];
    for (const item of parsed) {
      if (item === null || typeof item !== 'object') continue;
      const rec = item as Record<string, unknown>;
      const key = rec.Key ?? rec.key ?? rec.KEY;
      const value = rec.value ?? rec.Value ?? rec.VALUE;
      if (key === undefined || key === null || String(key) === '') continue;
      out.push({ key: String(key), value: value === undefined || value === null ? '' : String(value) });
    }
    return out;
  }
  if (parsed !== null && typeof parsed === 'object') {
    return Object.entries(parsed as Record<string, unknown>).map(([key, value]) => ({
      key,
      value: String(value ?? ''),
    }));
  }
  return [];
}

/** Decodes one list item into a Listing; lenient on member types because the hosted service may vary. */
export const listingFromWireSchema = z
  .object({
    ID: z.union([z.number().int(), z.string().regex(/^\d+$/).transform(Number)]),
    PropertyType: loose,
    SaleType: loose,
    Status: loose,
    Images: z.union([loose, z.array(z.string())]),
    CurrencySymbol: loose,
    Price: loose,
    State: loose,
    City: loose,
    Address: loose,
    ZIP: loose,
    Area: loose,
    Url: loose,
    Tours: loose,
    MLSNumber: loose,
    Description: loose,
    SpaceType: loose,
    LATITUDE: loose,
    LONGITUDE: loose,
    Bathrooms: loose,
    Bedrooms: loose,
    YearBuilt: loose,
    DaysOnMarket: loose,
    LotArea: loose,
    BuildingArea: loose,
    ParkingSpots: loose,
    ExtensionColumn: z.unknown().optional(),
    RentPrice: loose,
    DepositFee: loose,
    SalePrice: loose,
    UnitAreaPrice: loose,
    EstimatePrice: loose,
    HOAMonth: loose,
  })
  .passthrough()
  .transform((w): Listing => {
    const listing: Listing = {
      id: w.ID,
      propertyType: text(w.PropertyType),
      saleType: text(w.SaleType),
      status: text(w.Status),
      images: parseImages(w.Images),
      currencySymbol: text(w.CurrencySymbol),
      price: numeric(w.Price),
      priceText: text(w.Price),
      state: text(w.State),
      city: text(w.City),
      address: text(w.Address),
      zip: text(w.ZIP),
      area: text(w.Area),
      url: text(w.Url),
      tours: text(w.Tours),
      mlsNumber: text(w.MLSNumber),
      description: text(w.Description),
      spaceType: text(w.SpaceType),
      latitude: numeric(w.LATITUDE),
      longitude: numeric(w.LONGITUDE),
      bathrooms: numeric(w.Bathrooms),
      bedrooms: numeric(w.Bedrooms),
      yearBuilt: numeric(w.YearBuilt),
      daysOnMarket: numeric(w.DaysOnMarket),
      lotArea: numeric(w.LotArea),
      buildingArea: numeric(w.BuildingArea),
      parkingSpots: numeric(w.ParkingSpots),
      extensionColumns: parseExtensionColumns(w.ExtensionColumn),
      rentPrice: numeric(w.RentPrice),
      depositFee: numeric(w.DepositFee),
      salePrice: numeric(w.SalePrice),
      unitAreaPrice: numeric(w.UnitAreaPrice),
      estimatePrice: numeric(w.EstimatePrice),
      hoaMonth: numeric(w.HOAMonth),
    };
    // Drop undefined members so equality checks and printing stay clean.
    for (const k of Object.keys(listing) as Array<keyof Listing>) if (listing[k] === undefined) delete listing[k];
    return listing;
  });

export const listingListDataSchema = z.object({
  List: z
    .array(listingFromWireSchema)
    .nullish()
    .transform((l) => l ?? []),
  VirtualCount: z
    .union([z.number().int(), z.string().regex(/^\d+$/).transform(Number)])
    .nullish()
    .transform((n) => n ?? 0),
});
