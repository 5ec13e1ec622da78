import {
  byMls,
  DEMO,
  dollars,
  extra,
  forRent,
  forSale,
  grouped,
  holders,
  inCity,
  type L,
  mean,
  median,
  offered,
  ppsf,
  price,
} from './demo-oracle';
import { type Harness, harness } from './helpers';
import { type AskData, converse, exactly, named, type Step, says } from './reasoning-support';

/**
 * The built-in answerer reasoning over the demo data, one question per session, through ClientAsk over
 * HTTP: statistics, comparisons and filters on every fact. Every expected home and figure is computed
 * from the demo listings (demo-oracle.ts); the follow-ups are in answerer-followups.test.ts.
 */
const condo = (d: L) => d.PropertyType === 'Condo';
const house = (d: L) => d.PropertyType === 'House';
const mentions = (re: RegExp) => (d: L) => re.test(d.Description ?? '');
const round1 = (v: number) => Math.round(v * 10) / 10;

function statSays(stat: string, fact: string, list: readonly L[], what: string, value: string) {
  return (a: AskData) => says(a, `The ${stat} ${fact} of the ${list.length} ${what} is ${value}`);
}

function extreme(
  fact: string,
  list: readonly L[],
  f: (d: L) => number,
  most: boolean,
  what: string,
  write: (v: number) => string,
) {
  return (a: AskData) => {
    const h = holders(list, f, most);
    says(a, `The ${most ? 'highest' : 'lowest'} ${fact} of the ${list.length} ${what} is ${write(h.value)}`);
    expect(named(a).sort()).toEqual(h.who.map((d) => d.MLSNumber).sort());
  };
}

function compared(...ms: string[]) {
  return (a: AskData) => {
    says(a, `Here are the ${ms.length} homes side by side`);
    expect(named(a)).toEqual(ms);
    for (const d of ms.map(byMls)) {
      const money = d.SaleType === 'for_rent' ? `${dollars(price(d))}/month` : dollars(price(d));
      says(
        a,
        `Price: ${money}; Price per sq ft: ${dollars(ppsf(d), true)}`,
        `Beds / baths: ${d.Bedrooms} / ${d.Bathrooms}`,
      );
      says(a, `Area: ${grouped(d.BuildingArea)} sq ft; Year built: ${d.YearBuilt}; Parking: ${d.ParkingSpots} spot`);
    }
  };
}

const denverSale = offered(forSale, inCity('Denver'));
const austinSale = offered(forSale, inCity('Austin'));
const seattleRent = offered(forRent, inCity('Seattle'));
/** "Allowed" lets every pet in; "Cats and dogs allowed" names the kinds; "No pets" none. */
const allows = (kind: RegExp) => (d: L) =>
  !/^no\b/i.test(extra(d, 'Pets')) && (/^allowed$/i.test(extra(d, 'Pets')) || kind.test(extra(d, 'Pets')));

const ROWS: Step[] = [
  // Statistics, each said with what it covers.
  {
    q: "What's the average price of homes for sale in Denver?",
    check: statSays(
      'average',
      'asking price',
      denverSale,
      'homes for sale in Denver',
      dollars(Math.round(mean(denverSale.map(price)))),
    ),
  },
  {
    q: 'What is the median price of homes for sale in Austin?',
    check: statSays(
      'median',
      'asking price',
      austinSale,
      'homes for sale in Austin',
      dollars(Math.round(median(austinSale.map(price)))),
    ),
  },
  {
    q: 'average rent in Seattle',
    check: statSays(
      'average',
      'monthly rent',
      seattleRent,
      'homes for rent in Seattle',
      `${dollars(Math.round(mean(seattleRent.map(price))))}/month`,
    ),
  },
  {
    q: "What's the minimum price of homes for sale in Miami?",
    check: extreme('asking price', offered(forSale, inCity('Miami')), price, false, 'homes for sale in Miami', dollars),
  },
  {
    q: 'maximum price of homes for sale in Seattle',
    check: extreme(
      'asking price',
      offered(forSale, inCity('Seattle')),
      price,
      true,
      'homes for sale in Seattle',
      dollars,
    ),
  },
  {
    q: 'average price per square foot of homes for sale in Denver',
    check: statSays(
      'average',
      'price per square foot',
      denverSale,
      'homes for sale in Denver',
      dollars(mean(denverSale.map(ppsf)), true),
    ),
  },
  {
    q: "What's the average living area of homes in Miami?",
    check: (a) => {
      const list = offered(inCity('Miami'));
      says(
        a,
        `The average living area of the ${list.length} homes in Miami is ${grouped(Math.round(mean(list.map((d) => d.BuildingArea))))} sq ft`,
      );
    },
  },
  {
    q: 'median days on market of condos',
    check: (a) => {
      const list = offered(condo);
      says(
        a,
        `The median number of days on the market of the ${list.length} condos is ${round1(median(list.map((d) => d.DaysOnMarket)))} days`,
      );
    },
  },
  {
    q: 'average days on market of homes for rent',
    check: (a) => {
      const list = offered(forRent);
      says(
        a,
        `The average number of days on the market of the ${list.length} homes for rent is ${round1(mean(list.map((d) => d.DaysOnMarket)))} days`,
      );
    },
  },
  {
    q: "What's the average lot size of houses for sale in Austin?",
    check: (a) => {
      const list = offered(forSale, house, inCity('Austin')).filter((d) => d.LotArea > 0);
      says(
        a,
        `The average lot size of the ${list.length} houses for sale in Austin is ${grouped(Math.round(mean(list.map((d) => d.LotArea))))} sq ft`,
      );
    },
  },
  {
    q: 'average price of homes in Austin',
    check: (a) => {
      const rent = offered(forRent, inCity('Austin'));
      statSays(
        'average',
        'asking price',
        austinSale,
        'homes for sale in Austin',
        dollars(Math.round(mean(austinSale.map(price)))),
      )(a);
      says(
        a,
        `The average monthly rent of the ${rent.length} homes for rent in Austin is ${dollars(Math.round(mean(rent.map(price))))}/month`,
      );
    },
  },
  {
    q: 'maximum HOA of condos for sale',
    check: extreme('HOA fee', offered(forSale, condo), (d) => d.HOAMonth ?? 0, true, 'condos for sale', dollars),
  },
  {
    q: "What's the highest price per square foot of homes for sale?",
    check: extreme('price per square foot', offered(forSale), ppsf, true, 'homes for sale', (v) => dollars(v, true)),
  },
  {
    q: 'How many homes are for sale in Seattle?',
    check: (a) => says(a, `There are ${offered(forSale, inCity('Seattle')).length} homes for sale in Seattle`),
  },
  {
    q: 'Which home for sale has the most parking?',
    check: (a) => {
      const h = holders(offered(forSale), (d) => d.ParkingSpots, true);
      says(a, `is ${h.value}.`);
      expect(named(a).sort()).toEqual(h.who.map((d) => d.MLSNumber).sort());
    },
  },
  {
    q: "What's the largest lot in Denver?",
    check: (a) => {
      const h = holders(offered(inCity('Denver')), (d) => d.LotArea, true);
      says(a, `is ${grouped(h.value)} sq ft`);
      expect(named(a)).toEqual(h.who.map((d) => d.MLSNumber));
    },
  },
  {
    q: 'Which rental has been on the market the longest?',
    check: (a) => {
      const h = holders(offered(forRent), (d) => d.DaysOnMarket, true);
      says(a, `is ${h.value} days`);
      expect(named(a)).toEqual(h.who.map((d) => d.MLSNumber));
    },
  },
  // Comparisons by MLS number and address, each home named with its figures.
  { q: 'Can you compare ATX240000 and ATX240131?', check: compared('ATX240000', 'ATX240131') },
  { q: 'Compare 3096 Larimer St and 4460 Blake St', check: compared('DEN240007', 'DEN240531') },
  { q: 'compare MIA240152, MIA240414 and SEA240407', check: compared('MIA240152', 'MIA240414', 'SEA240407') },
  { q: "What's the difference between SEA240276 and SEA240669?", check: compared('SEA240276', 'SEA240669') },
  { q: 'ATX240262 vs DEN240269', check: compared('ATX240262', 'DEN240269') },
  // Filters on every fact.
  {
    q: 'homes with two or more parking spots in Denver',
    check: (a) =>
      exactly(
        a,
        offered(inCity('Denver'), (d) => d.ParkingSpots >= 2),
      ),
  },
  {
    q: 'homes built after 2000 in Austin',
    check: (a) =>
      exactly(
        a,
        offered(inCity('Austin'), (d) => d.YearBuilt > 2000),
      ),
  },
  {
    q: 'homes for sale built before 1980',
    check: (a) =>
      exactly(
        a,
        offered(forSale, (d) => d.YearBuilt < 1980),
      ),
  },
  {
    q: 'homes for sale built between 1980 and 2000',
    check: (a) =>
      exactly(
        a,
        offered(forSale, (d) => d.YearBuilt >= 1980 && d.YearBuilt <= 2000),
      ),
  },
  {
    q: 'homes over 2,500 sq ft',
    check: (a) =>
      exactly(
        a,
        offered((d) => d.BuildingArea >= 2500),
      ),
  },
  {
    q: 'rentals under 2,100 sq ft',
    check: (a) =>
      exactly(
        a,
        offered(forRent, (d) => d.BuildingArea <= 2100),
      ),
  },
  {
    q: 'homes for sale on a lot of at least 7,000 sq ft',
    check: (a) =>
      exactly(
        a,
        offered(forSale, (d) => d.LotArea >= 7000),
      ),
  },
  {
    q: 'homes listed in the last 20 days',
    check: (a) =>
      exactly(
        a,
        offered((d) => d.DaysOnMarket <= 20),
      ),
  },
  {
    q: 'homes on the market for more than 80 days',
    check: (a) =>
      exactly(
        a,
        offered((d) => d.DaysOnMarket > 80),
      ),
  },
  {
    q: 'condos for sale with an HOA under $300',
    check: (a) =>
      exactly(
        a,
        offered(forSale, condo, (d) => (d.HOAMonth ?? 0) < 300),
      ),
  },
  {
    q: 'Any pet friendly rentals in Miami with a pool?',
    check: (a) => {
      says(a, "The listings don't say whether they have a pool.");
      const rentals = offered(forRent, inCity('Miami'));
      exactly(a, rentals.filter(allows(/pets|dogs|cats/i)));
      for (const d of rentals.filter(allows(/pets|dogs|cats/i))) says(a, `Pets: ${extra(d, 'Pets')}`);
    },
  },
  { q: 'Which rentals allow dogs?', check: (a) => exactly(a, offered(forRent, allows(/dogs/i))) },
  // A courtyard is no yard.
  { q: 'homes with a yard', check: (a) => exactly(a, offered(mentions(/\b(back)?yard\b/i))) },
  { q: 'homes for sale with garden views', check: (a) => exactly(a, offered(forSale, mentions(/garden views/i))) },
  {
    q: 'homes with mountain views in Seattle',
    check: (a) => exactly(a, offered(inCity('Seattle'), mentions(/mountain views/i))),
  },
  {
    q: 'homes with a heat pump in Miami',
    check: (a) =>
      exactly(
        a,
        offered(inCity('Miami'), (d) => extra(d, 'Heating') === 'Heat pump'),
      ),
  },
  {
    q: 'homes with forced air heating in Denver',
    check: (a) =>
      exactly(
        a,
        offered(inCity('Denver'), (d) => extra(d, 'Heating') === 'Forced air'),
      ),
  },
  {
    q: 'apartments with a balcony',
    check: (a) =>
      exactly(
        a,
        offered((d) => d.PropertyType === 'Apartment', mentions(/balcony/i)),
      ),
  },
  {
    q: 'homes with a fireplace',
    check: (a) => {
      expect(DEMO.some(mentions(/fireplace/i))).toBe(false);
      says(a, "The listings don't say whether they have a fireplace.");
    },
  },
  {
    q: '3 bedroom rentals with 2 parking spots',
    check: (a) =>
      exactly(
        a,
        offered(forRent, (d) => d.Bedrooms >= 3 && d.ParkingSpots >= 2),
      ),
  },
  {
    q: 'houses for sale with 2+ parking spots built after 2000',
    check: (a) =>
      exactly(
        a,
        offered(forSale, house, (d) => d.ParkingSpots >= 2 && d.YearBuilt > 2000),
      ),
  },
  {
    q: 'homes for sale in Denver with hardwood floors',
    check: (a) => exactly(a, offered(forSale, inCity('Denver'), mentions(/hardwood/i))),
  },
  {
    q: 'oldest home for sale in Miami',
    check: (a) => exactly(a, [holders(offered(forSale, inCity('Miami')), (d) => -d.YearBuilt, true).who[0]]),
  },
  { q: 'What is the capital of France?', noAnswer: true, check: (a) => expect(named(a)).toEqual([]) },
];

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

describe('the built-in answerer reasons over the demo data', () => {
  it('has at least 45 questions', () => expect(ROWS.length).toBeGreaterThanOrEqual(45));

  it.each(ROWS.map((r) => [r.q, r] as const))('%s', async (_q, row) => {
    await converse(h, [row]);
  });
});
