import {
  byMls,
  cheapest,
  dollars,
  extra,
  forRent,
  forSale,
  holders,
  inCity,
  type L,
  mean,
  median,
  offered,
  ppsf,
} from './demo-oracle';
import { type Harness, harness } from './helpers';
import { converse, exactly, named, type Step, says } from './reasoning-support';

/**
 * Follow-ups in one session, through ClientAsk over HTTP: each question after the first acts on the
 * previous answer ("those", "the first two", "it") or narrows the previous search ("only condos",
 * "in Austin instead"). Every answer is checked; expected homes and figures come from the demo data.
 */
const condo = (d: L) => d.PropertyType === 'Condo';
const listedOrder = (list: readonly L[]) => list; // a search lists homes in the data's order

const seattleSale = offered(forSale, inCity('Seattle'));
const denverSale = offered(forSale, inCity('Denver'));
const austinSale = offered(forSale, inCity('Austin'));
const miamiRent = offered(forRent, inCity('Miami'));
const petsOk = (d: L) => !/^no\b/i.test(extra(d, 'Pets'));
const parkingSays = (d: L) => `${d.ParkingSpots} parking spot${d.ParkingSpots === 1 ? '' : 's'}`;

const SESSIONS: Step[][] = [
  [
    { q: 'What homes are for sale in Seattle?', check: (a) => exactly(a, seattleSale) },
    {
      q: 'Which of those is the cheapest? Does it have parking?',
      check: (a) => {
        exactly(a, [cheapest(seattleSale)]);
        says(a, parkingSays(cheapest(seattleSale)));
      },
    },
  ],
  [
    { q: 'What homes are for sale in Denver?', check: (a) => exactly(a, denverSale) },
    { q: 'Which of those is the cheapest?', check: (a) => exactly(a, [cheapest(denverSale)]) },
    { q: 'only condos', check: (a) => exactly(a, denverSale.filter(condo)) },
    { q: 'in Austin instead', check: (a) => exactly(a, austinSale.filter(condo)) },
    {
      q: 'what about houses?',
      check: (a) =>
        exactly(
          a,
          austinSale.filter((d) => d.PropertyType === 'House'),
        ),
    },
  ],
  [
    { q: 'Homes for sale in Austin', check: (a) => exactly(a, austinSale) },
    {
      q: 'under 600k',
      check: (a) =>
        exactly(
          a,
          austinSale.filter((d) => (d.SalePrice ?? 0) <= 600_000),
        ),
    },
    {
      q: 'with 1.5 bathrooms',
      check: (a) =>
        exactly(
          a,
          austinSale.filter((d) => (d.SalePrice ?? 0) <= 600_000 && d.Bathrooms >= 1.5),
        ),
    },
  ],
  [
    {
      q: "What's the average price of homes for sale in Denver?",
      check: (a) =>
        says(
          a,
          `The average asking price of the 4 homes for sale in Denver is ${dollars(mean(denverSale.map((d) => d.SalePrice ?? 0)))}`,
        ),
    },
    {
      q: 'what about the median?',
      check: (a) =>
        says(
          a,
          `The median asking price of the 4 homes for sale in Denver is ${dollars(median(denverSale.map((d) => d.SalePrice ?? 0)))}`,
        ),
    },
    {
      q: 'Which of them has the most parking?',
      check: (a) =>
        expect(named(a).sort()).toEqual(
          holders(denverSale, (d) => d.ParkingSpots, true)
            .who.map((d) => d.MLSNumber)
            .sort(),
        ),
    },
    { q: 'show me those', check: (a) => exactly(a, denverSale) },
  ],
  [
    { q: 'Homes for sale in Denver', check: (a) => exactly(a, denverSale) },
    {
      q: 'compare the first two',
      check: (a) => {
        says(a, 'Here are the 2 homes side by side');
        expect(named(a)).toEqual(
          listedOrder(denverSale)
            .slice(0, 2)
            .map((d) => d.MLSNumber),
        );
      },
    },
    {
      q: 'what is the average price per square foot of those?',
      check: (a) =>
        says(
          a,
          `The average price per square foot of the 2 homes for sale in Denver from my last answer is ${dollars(mean(denverSale.slice(0, 2).map(ppsf)), true)}`,
        ),
    },
    {
      q: 'which of them have 2 parking spots?',
      check: (a) =>
        exactly(
          a,
          denverSale.slice(0, 2).filter((d) => d.ParkingSpots >= 2),
        ),
    },
  ],
  [
    { q: 'rentals in Seattle', check: (a) => exactly(a, offered(forRent, inCity('Seattle'))) },
    {
      q: 'Is the first one pet friendly?',
      check: (a) => says(a, `Pets: ${extra(offered(forRent, inCity('Seattle'))[0], 'Pets')}`),
    },
    {
      q: 'What year was it built?',
      check: (a) => says(a, `Built in ${offered(forRent, inCity('Seattle'))[0].YearBuilt}`),
    },
    { q: 'and the second one?', check: (a) => exactly(a, [offered(forRent, inCity('Seattle'))[1]]) },
  ],
  [
    { q: 'Homes for rent in Miami', check: (a) => exactly(a, miamiRent) },
    { q: 'which of them allow pets?', check: (a) => exactly(a, miamiRent.filter(petsOk)) },
    { q: 'the first one', check: (a) => exactly(a, [miamiRent.filter(petsOk)[0]]) },
    { q: 'does it have a balcony?', check: (a) => says(a, /Mentions a balcony|doesn't say whether it has a balcony/i) },
  ],
  [
    { q: 'homes for sale in Austin', check: (a) => exactly(a, austinSale) },
    { q: 'the first two', check: (a) => exactly(a, austinSale.slice(0, 2)) },
    { q: 'compare them', check: (a) => expect(named(a)).toEqual(austinSale.slice(0, 2).map((d) => d.MLSNumber)) },
  ],
  [
    {
      q: 'houses for sale',
      check: (a) =>
        exactly(
          a,
          offered(forSale, (d) => d.PropertyType === 'House'),
        ),
    },
    {
      q: 'which of those were built after 2000?',
      check: (a) =>
        exactly(
          a,
          offered(forSale, (d) => d.PropertyType === 'House')
            .slice(0, 5)
            .filter((d) => d.YearBuilt > 2000),
        ),
    },
    {
      q: 'the cheapest one',
      check: (a) => exactly(a, [cheapest(offered(forSale, (d) => d.PropertyType === 'House' && d.YearBuilt > 2000))]),
    },
  ],
  [
    { q: 'Homes for rent in Austin', check: (a) => exactly(a, offered(forRent, inCity('Austin'))) },
    { q: 'and in Denver?', check: (a) => exactly(a, offered(forRent, inCity('Denver'))) },
    {
      q: 'which is the largest?',
      check: (a) =>
        exactly(a, holders(offered(forRent, inCity('Denver')), (d) => d.BuildingArea, true).who.slice(0, 1)),
    },
  ],
  [
    { q: 'Compare ATX240000 and ATX240131', check: (a) => expect(named(a)).toEqual(['ATX240000', 'ATX240131']) },
    {
      q: 'which of them is newer?',
      check: (a) => exactly(a, [[byMls('ATX240000'), byMls('ATX240131')].sort((x, y) => y.YearBuilt - x.YearBuilt)[0]]),
    },
  ],
  [
    {
      q: 'homes with two or more parking spots in Denver',
      check: (a) =>
        exactly(
          a,
          offered(inCity('Denver'), (d) => d.ParkingSpots >= 2),
        ),
    },
    {
      q: 'how many of those are for sale?',
      check: (a) =>
        says(
          a,
          `There ${offered(inCity('Denver'), forSale, (d) => d.ParkingSpots >= 2).length === 1 ? 'is 1 home' : `are ${offered(inCity('Denver'), forSale, (d) => d.ParkingSpots >= 2).length} homes`} for sale`,
        ),
    },
  ],
  [
    { q: 'Tell me about MLS DEN240007', check: (a) => exactly(a, [byMls('DEN240007')]) },
    { q: 'does it have parking?', check: (a) => says(a, parkingSays(byMls('DEN240007'))) },
    {
      q: "what's the HOA?",
      check: (a) =>
        says(a, byMls('DEN240007').HOAMonth ? `HOA fee $${byMls('DEN240007').HOAMonth}` : 'No HOA fee listed'),
    },
    {
      q: 'and the price per square foot?',
      check: (a) => says(a, `${dollars(ppsf(byMls('DEN240007')), true)} per sq ft`),
    },
  ],
  [
    { q: 'Homes for sale in Denver', check: (a) => exactly(a, denverSale) },
    { q: 'compare ATX240000 and ATX240131', check: (a) => expect(named(a)).toEqual(['ATX240000', 'ATX240131']) },
    {
      // Austin homes compared in a Denver conversation are not described as Denver's.
      q: 'which of them is newer?',
      check: (a) => {
        exactly(a, [[byMls('ATX240000'), byMls('ATX240131')].sort((x, y) => y.YearBuilt - x.YearBuilt)[0]]);
        expect(a.content).not.toContain('Denver');
      },
    },
  ],
  [
    { q: 'how many homes have a pool?', check: (a) => says(a, "The listings don't say whether they have a pool.") },
    {
      // The pool, said once, does not follow into the refinement.
      q: "What's the cheapest one with parking?",
      check: (a) => {
        expect(a.content).not.toContain('pool');
        exactly(
          a,
          [forSale, forRent].map((t) => cheapest(offered(t, (d) => d.ParkingSpots >= 1))),
        );
      },
    },
  ],
  [
    {
      q: 'What are the cheapest 2 rentals?',
      check: (a) =>
        exactly(a, [...offered(forRent)].sort((x, y) => (x.RentPrice ?? 0) - (y.RentPrice ?? 0)).slice(0, 2)),
    },
    {
      q: 'How many days has the second one been on the market?',
      check: (a) => {
        const second = [...offered(forRent)].sort((x, y) => (x.RentPrice ?? 0) - (y.RentPrice ?? 0))[1];
        says(a, `(MLS ${second.MLSNumber}): ${second.DaysOnMarket} days on the market.`);
      },
    },
  ],
  [
    { q: 'rentals in Denver', check: (a) => exactly(a, offered(forRent, inCity('Denver'))) },
    {
      q: 'which one is bigger?',
      check: (a) =>
        exactly(a, holders(offered(forRent, inCity('Denver')), (d) => d.BuildingArea, true).who.slice(0, 1)),
    },
    {
      q: 'is it pet friendly?',
      check: (a) =>
        says(
          a,
          `Pets: ${extra(holders(offered(forRent, inCity('Denver')), (d) => d.BuildingArea, true).who[0], 'Pets')}`,
        ),
    },
  ],
  [
    {
      q: "What's the average size of homes for sale in Seattle?",
      check: (a) => says(a, 'The average living area of the'),
    },
    {
      // A continuation repeats the statistic over the changed search.
      q: 'and in Miami?',
      check: (a) => {
        const miami = offered(forSale, inCity('Miami'));
        says(
          a,
          `The average living area of the ${miami.length} homes for sale in Miami is ${Math.round(mean(miami.map((d) => d.BuildingArea))).toLocaleString('en-US')} sq ft`,
        );
      },
    },
  ],
];

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

describe('follow-ups act on the previous result', () => {
  it('about a third of the reasoning questions are follow-ups', () => {
    const followUps = SESSIONS.reduce((n, s) => n + s.length - 1, 0);
    expect(followUps).toBeGreaterThanOrEqual(28);
  });

  it.each(SESSIONS.map((s) => [s.map((x) => x.q).join(' / '), s] as const))('%s', async (_name, steps) => {
    await converse(h, steps);
  });
});

describe('in Spanish (AIResponseLanguage)', () => {
  it('a statistic, a comparison and a follow-up on "those" in Spanish', async () => {
    const es = await harness({ chatbotId: 'es-demo' });
    try {
      expect(
        (await es.post('/chat/Chatbot/Edit', { serialNumber: 'es-demo', AIResponseLanguage: 'Spanish' })).body.Success,
      ).toBe(true);
      await converse(
        es,
        [
          {
            q: '¿Cuál es el precio medio de las viviendas en venta en Denver?',
            check: (a) =>
              says(
                a,
                `El precio medio de las 4 viviendas en venta en Denver es ${dollars(mean(denverSale.map((d) => d.SalePrice ?? 0)))}`,
              ),
          },
          { q: '¿Cuál de ellas es la más barata?', check: (a) => exactly(a, [cheapest(denverSale)]) },
          {
            q: 'compara las dos primeras',
            check: (a) => expect(named(a)).toEqual(denverSale.slice(0, 2).map((d) => d.MLSNumber)),
          },
          {
            q: '¿cuántas de ellas tienen aparcamiento para 2 coches?',
            check: (a) => {
              const n = denverSale.slice(0, 2).filter((d) => d.ParkingSpots >= 2).length;
              says(
                a,
                `Hay ${n} ${n === 1 ? 'vivienda' : 'viviendas'} en venta en Denver con 2+ plazas de aparcamiento`,
              );
            },
          },
          {
            q: 'viviendas en alquiler en Miami con piscina',
            check: (a) => {
              says(a, 'Los anuncios no dicen si tienen piscina.');
              exactly(a, miamiRent);
            },
          },
          {
            q: 'compara ATX240000 y ATX240131',
            check: (a) => {
              says(a, 'Estas son las 2 viviendas, una junto a otra', 'Precio por pie²', 'Año de construcción');
              expect(a.content).not.toMatch(/\b(Price|Year built|Parking|side by side)\b/);
            },
          },
        ],
        'es-demo',
      );
    } finally {
      await es.close();
    }
  });
});
