import type { ListingData } from '../listings/listing-data';

interface CitySpec {
  city: string;
  state: string;
  zip: string;
  lat: number;
  lon: number;
  mlsPrefix: string;
  streets: readonly string[];
  neighborhoods: readonly string[];
}

const CITIES: readonly CitySpec[] = [
  {
    city: 'Austin',
    state: 'TX',
    zip: '787',
    lat: 30.2672,
    lon: -97.7431,
    mlsPrefix: 'ATX',
    streets: ['Barton Springs Rd', 'S Congress Ave', 'E 6th St', 'Rainey St', 'Shoal Creek Blvd', 'Burnet Rd'],
    neighborhoods: ['Zilker', 'Travis Heights', 'East Austin', 'Rainey Street', 'Rosedale', 'Allandale'],
  },
  {
    city: 'Denver',
    state: 'CO',
    zip: '802',
    lat: 39.7392,
    lon: -104.9903,
    mlsPrefix: 'DEN',
    streets: ['Larimer St', 'Colfax Ave', 'Tennyson St', 'S Pearl St', 'Blake St', 'E 17th Ave'],
    neighborhoods: ['LoDo', 'Capitol Hill', 'Berkeley', 'Platt Park', 'RiNo', 'Uptown'],
  },
  {
    city: 'Seattle',
    state: 'WA',
    zip: '981',
    lat: 47.6062,
    lon: -122.3321,
    mlsPrefix: 'SEA',
    streets: ['Pike St', 'Queen Anne Ave N', 'NW Market St', 'Fremont Ave N', 'E Madison St', 'California Ave SW'],
    neighborhoods: ['Capitol Hill', 'Queen Anne', 'Ballard', 'Fremont', 'Madison Park', 'West Seattle'],
  },
  {
    city: 'Miami',
    state: 'FL',
    zip: '331',
    lat: 25.7617,
    lon: -80.1918,
    mlsPrefix: 'MIA',
    streets: ['Brickell Ave', 'Collins Ave', 'Coral Way', 'NE 2nd Ave', 'Biscayne Blvd', 'SW 8th St'],
    neighborhoods: ['Brickell', 'South Beach', 'Coral Gables', 'Wynwood', 'Edgewater', 'Little Havana'],
  },
];

const SALE_TYPES = ['House', 'Condo', 'Townhouse', 'House'] as const;
const RENT_TYPES = ['Apartment', 'Condo'] as const;
const VIEWS = ['city skyline', 'park', 'garden', 'water', 'mountain', 'courtyard'];
const FEATURES = [
  'an open-plan kitchen with quartz counters',
  'a renovated primary suite with a walk-in closet',
  'hardwood floors throughout and high ceilings',
  'a private backyard with a covered patio',
  'floor-to-ceiling windows and a balcony',
  'a chef-style kitchen with a gas range and island',
];
const STATUSES = ['Active', 'Active', 'PreOnMarket', 'Sold'] as const;

/** Deterministic pseudo-random sequence: the same listings on every new database. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * One listing of city `c`, the `i`-th of its kind. Six per city cycle through sale/rent and the
 * three statuses, so any prefix of 24 covers every city, both sale types and every status.
 */
function makeListing(c: CitySpec, i: number, rand: () => number, serial: number): ListingData {
  const forRent = i % 3 === 2;
  const street = c.streets[i % c.streets.length];
  const hood = c.neighborhoods[i % c.neighborhoods.length];
  const number = 100 + Math.floor(rand() * 8900);
  const beds = forRent ? 1 + (i % 3) : 2 + ((i + Math.floor(rand() * 3)) % 4);
  const baths = Math.max(1, beds - 1) + (rand() < 0.5 ? 0.5 : 0);
  const area = Math.round((600 + beds * 420 + rand() * 600) / 10) * 10;
  const propertyType = forRent ? RENT_TYPES[i % RENT_TYPES.length] : SALE_TYPES[i % SALE_TYPES.length];
  const cityFactor = c.city === 'Seattle' ? 1.35 : c.city === 'Miami' ? 1.2 : c.city === 'Denver' ? 1.05 : 1;
  const salePrice = Math.round((area * 310 * cityFactor + rand() * 90000) / 1000) * 1000;
  const rentPrice = Math.round((600 + area * 1.3 * cityFactor) / 25) * 25;
  const status = STATUSES[(i + serial) % STATUSES.length];
  const mls = `${c.mlsPrefix}${String(240000 + serial * 7 + i * 131).padStart(6, '0')}`;
  const slug = `${number}-${street}`.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const feature = FEATURES[(i + serial) % FEATURES.length];
  const view = VIEWS[(i * 5 + serial) % VIEWS.length];
  const year = 1948 + Math.floor(rand() * 75);
  const d: ListingData = {
    SaleType: forRent ? 'for_rent' : 'for_sale',
    Status: forRent && status === 'Sold' ? 'Active' : status,
    CurrencySymbol: '$',
    PropertyType: propertyType,
    Bedrooms: beds,
    Bathrooms: baths,
    Url: `https://homes.example.com/${c.city.toLowerCase()}/${slug}-${mls.toLowerCase()}`,
    MLSNumber: mls,
    YearBuilt: year,
    DaysOnMarket: Math.floor(rand() * 90),
    LotArea: propertyType === 'House' ? Math.round(area * (2 + rand() * 2)) : 0,
    BuildingArea: area,
    AreaUnit: 'Square Feet',
    Images: [
      `https://images.example.com/listings/${mls.toLowerCase()}/front.jpg`,
      `https://images.example.com/listings/${mls.toLowerCase()}/kitchen.jpg`,
      `https://images.example.com/listings/${mls.toLowerCase()}/living.jpg`,
    ],
    ParkingSpots: propertyType === 'Apartment' ? 0 : 1 + (i % 2),
    Description:
      `${beds}-bedroom ${propertyType.toLowerCase()} in ${hood} with ${feature}, ${view} views, ` +
      `and an easy walk to ${street}'s cafes and shops. Built in ${year}, well maintained and move-in ready.`,
    ExtensionColumn: [
      { Key: 'Neighborhood', value: hood },
      { Key: 'Heating', value: i % 2 === 0 ? 'Forced air' : 'Heat pump' },
      { Key: 'Pets', value: forRent ? (i % 2 === 0 ? 'Cats and dogs allowed' : 'No pets') : 'Allowed' },
    ],
    Location: `${hood}, ${c.city}`,
    Address: `${number} ${street}`,
    City: c.city,
    State: c.state,
    ZIP: `${c.zip}${String(1 + (i % 40)).padStart(2, '0')}`,
    Latitude: Math.round((c.lat + (rand() - 0.5) * 0.12) * 1e6) / 1e6,
    Longitude: Math.round((c.lon + (rand() - 0.5) * 0.12) * 1e6) / 1e6,
  };
  if (i % 2 === 0) d.Tours = i % 4 === 0 ? 'OpenHouse' : '3D';
  if (forRent) {
    d.RentPrice = rentPrice;
    d.DepositFee = rentPrice;
    d.SpaceType = i % 6 === 5 ? 'Room' : 'Entire place';
  } else {
    d.SalePrice = salePrice;
    d.UnitAreaPrice = Math.round((salePrice / area) * 100) / 100;
    d.EstimatePrice = Math.round((salePrice * (0.97 + rand() * 0.08)) / 1000) * 1000;
    if (propertyType !== 'House') d.HOAMonth = 150 + Math.round(rand() * 450);
  }
  return d;
}

/** The demo chatbot's listings: 24, six per city (Austin, Denver, Seattle, Miami). */
export function demoListings(): ListingData[] {
  const rand = rng(42);
  const out: ListingData[] = [];
  CITIES.forEach((c, ci) => {
    for (let i = 0; i < 6; i++) out.push(makeListing(c, i, rand, ci));
  });
  return out;
}

/** `n` listings spread evenly over the cities and both sale types (benchmarks, load tests). */
export function syntheticListings(n: number, seed = 7): ListingData[] {
  const rand = rng(seed);
  const out: ListingData[] = [];
  for (let k = 0; k < n; k++) out.push(makeListing(CITIES[k % CITIES.length], Math.floor(k / CITIES.length), rand, k));
  return out;
}
