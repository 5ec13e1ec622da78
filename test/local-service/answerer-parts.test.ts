import { evaluate } from '../../src/local-service/answerer/evaluate';
import { type ParseContext, parseQuery } from '../../src/local-service/answerer/parse-query';
import { phrasesFor } from '../../src/local-service/answerer/phrases';
import { isHouseAddress, vocabulary } from '../../src/local-service/answerer/query';
import type { Previous, Query } from '../../src/local-service/answerer/query-model';
import { reasonPhrasesFor } from '../../src/local-service/answerer/reason-phrases';
import { write } from '../../src/local-service/answerer/write';
import type { Writing } from '../../src/local-service/answerer/write-common';
import type { StoredListing } from '../../src/local-service/listings/listings-repo';
import { DEMO } from './demo-oracle';

/**
 * The answerer's three parts alone: the parser (question + previous result -> query), the evaluator
 * (query -> listings) and the writers (evaluation -> text), over the demo listings without a service.
 */
const ALL: StoredListing[] = DEMO.map((data, i) => ({ id: i + 1, data }));
const at = (mls: string): StoredListing => {
  const l = ALL.find((x) => x.data.MLSNumber === mls);
  if (!l) throw new Error(mls);
  return l;
};
const NONE: Previous = { shown: [], list: [] };
const ctx = (previous: Previous = NONE): ParseContext => ({
  vocab: vocabulary(ALL),
  mls: new Set(ALL.map((l) => l.data.MLSNumber)),
  houses: new Set(vocabulary(ALL).streets.filter(isHouseAddress)),
  fieldNames: ['Neighborhood', 'Heating', 'Pets'],
  previous,
});
const parse = (q: string, previous?: Previous) => parseQuery(q, ctx(previous));
const W: Writing = { p: phrasesFor('English'), rp: reasonPhrasesFor('English'), currency: '$', all: ALL };

const denverSale = ['DEN240007', 'DEN240138', 'DEN240400', 'DEN240531'].map(at);
const afterDenver: Previous = { query: parse('homes for sale in Denver'), shown: denverSale, list: denverSale };

describe('the parser', () => {
  it('reads a superlative on "those" with a fact asked of the one it picks', () => {
    const q = parse('Which of those is the cheapest? Does it have parking?', afterDenver);
    expect(q.set).toEqual({ kind: 'previous' });
    expect(q.op).toEqual({ kind: 'superlative', sort: 'cheapest', top: 1 });
    expect(q.asks).toEqual([{ kind: 'number', fact: 'parking' }]);
    expect(q.criteria).toMatchObject({ city: 'Denver', saleType: 'for_sale' });
  });

  it('a refinement changes one condition and keeps the rest', () => {
    const condos = parse('only condos', afterDenver);
    expect(condos.set.kind).toBe('search');
    expect(condos.criteria).toEqual({ city: 'Denver', saleType: 'for_sale', propertyType: 'Condo' });
    const moved = parse('in Austin instead', { ...afterDenver, query: condos });
    expect(moved.criteria).toEqual({ city: 'Austin', saleType: 'for_sale', propertyType: 'Condo' });
    const cheaper = parse('under $700k', { ...afterDenver, query: moved });
    expect(cheaper.criteria).toEqual({
      city: 'Austin',
      saleType: 'for_sale',
      propertyType: 'Condo',
      maxPrice: 700_000,
    });
  });

  it('comparisons by MLS number, by address and by position', () => {
    expect(parse('Can you compare ATX240000 and ATX240131?').set).toEqual({
      kind: 'named',
      keys: [
        { kind: 'mls', mls: 'ATX240000' },
        { kind: 'mls', mls: 'ATX240131' },
      ],
    });
    const byAddress = parse('Compare 3096 Larimer St and 4460 Blake St');
    expect(byAddress.op.kind).toBe('compare');
    expect(byAddress.set).toEqual({
      kind: 'named',
      keys: [
        { kind: 'address', street: '3096 larimer st' },
        { kind: 'address', street: '4460 blake st' },
      ],
    });
    expect(parse('compare the first two', afterDenver).set).toEqual({ kind: 'previous', pick: [1, 2] });
  });

  it('a statistic, and numbers of years and areas that are not prices', () => {
    expect(parse("What's the average price of homes for sale in Denver?").op).toEqual({
      kind: 'aggregate',
      stat: 'average',
      fact: 'price',
    });
    const years = parse('homes for sale built between 1980 and 2000');
    expect(years.filters).toEqual([{ kind: 'range', fact: 'year', min: 1980, max: 2000 }]);
    expect(years.criteria).toEqual({ saleType: 'for_sale' });
    const area = parse('homes under 2,000 sq ft');
    expect(area.filters).toEqual([{ kind: 'range', fact: 'area', max: 2000 }]);
    expect(area.criteria.maxPrice).toBeUndefined();
  });

  it('features from words, and questions outside the listings', () => {
    const q = parse('Any pet friendly rentals in Miami with a pool?');
    expect(q.filters.map((f) => (f.kind === 'feature' ? f.feature.label : f.kind))).toEqual(['pets', 'a pool']);
    expect(parse('What is the capital of France?').op.kind).toBe('none');
  });
});

describe('the evaluator', () => {
  const run = (q: string, previous: Previous = NONE) => evaluate(parse(q, previous), ALL, previous);

  it('a feature no listing of the set states is unknown and not filtered on; one they state filters', () => {
    const ev = run('Any pet friendly rentals in Miami with a pool?');
    expect(ev.unknown.map((f) => f.label)).toEqual(['a pool']);
    expect(ev.base.map((l) => l.data.MLSNumber)).toEqual(['MIA240283', 'MIA240676']);
    expect(ev.found.map((l) => l.data.MLSNumber)).toEqual(['MIA240283']);
  });

  it('"those" is the previous answer in its order; a position past it is a problem, not a guess', () => {
    expect(run('Which of those is the cheapest?', afterDenver).found.map((l) => l.data.MLSNumber)).toEqual([
      'DEN240400',
    ]);
    expect(run('the ninth one', afterDenver).problem).toEqual({ kind: 'noOrdinal', index: 9, shown: 4 });
    expect(run('the second one').problem).toEqual({ kind: 'noPrevious' });
  });
});

describe('facts held in extra fields', () => {
  const own = (mls: string, extra: { Key: string; value: string }[]): StoredListing => ({
    id: 900 + Number(mls.slice(-1)),
    data: { ...at('DEN240007').data, MLSNumber: mls, Address: `${mls} Test Ln`, ExtensionColumn: extra },
  });
  const set = [
    own('TST000001', [{ Key: 'Pool', value: 'Yes' }]),
    own('TST000002', [{ Key: 'Pool', value: 'No' }]),
    own('TST000003', [{ Key: 'Waterfront', value: 'Lake access' }]),
  ];
  const context = { ...ctx(), fieldNames: ['Pool', 'Waterfront'] };

  it('a field named for the feature says yes or no; a listing without it is not guessed to have it', () => {
    const ev = evaluate(parseQuery('homes with a pool', context), set, NONE);
    expect(ev.unknown).toEqual([]);
    expect(ev.found.map((l) => l.data.MLSNumber)).toEqual(['TST000001']);
    expect(write(ev, { ...W, all: set }, ['Denver'])).toContain('Pool: Yes.');
  });

  it("any extra field the listings carry is a fact a question can filter on (the chatbot's own names)", () => {
    const ev = evaluate(parseQuery('homes in Denver on the waterfront', context), set, NONE);
    expect(ev.found.map((l) => l.data.MLSNumber)).toEqual(['TST000003']);
  });
});

describe('the writers', () => {
  const say = (q: Query, previous: Previous = NONE) => write(evaluate(q, ALL, previous), W, ['Denver']);

  it('a statistic says what it covers', () => {
    expect(say(parse('average price of homes for sale in Denver'))).toBe(
      'The average asking price of the 4 homes for sale in Denver is $721,750.',
    );
    expect(say(parse('lowest HOA of condos for sale in Denver'))).toBe(
      'The lowest HOA fee of the condo for sale in Denver is $518. That is 4632 Colfax Ave (MLS DEN240138).',
    );
  });

  it('a comparison names each home with its figures and who leads', () => {
    const text = say(parse('compare ATX240000 and ATX240131'));
    expect(text).toContain('Here are the 2 homes side by side');
    expect(text).toContain('Price: $521,000; Price per sq ft: $331.85; Beds / baths: 2 / 1; Area: 1,570 sq ft');
    expect(text).toContain('Lowest price: 2345 Barton Springs Rd ($521,000).');
  });

  it('a home the data does not hold is said not to be there, not guessed', () => {
    expect(say(parse('Tell me about MLS XYZ123456'))).toBe('I have no listing matching XYZ123456.');
    const text = say(parse('compare ATX240000 and ATX999999'));
    expect(text).toMatch(/^I have no listing matching ATX999999\.\n\nTo compare, name two or more homes/);
    expect(text).toContain('(MLS ATX240000)');
  });

  it('a fact the data does not hold is said plainly', () => {
    expect(say(parse('homes in Denver with a pool'))).toMatch(/^The listings don't say whether they have a pool\./);
  });

  it('a narrowing of the previous homes to none says so', () => {
    expect(say(parse('which of those were built before 1900?', afterDenver), afterDenver)).toBe(
      'None of the 4 homes from my last answer is built in 1899 or earlier.',
    );
  });
});
