import { SETTING_FIELDS } from '../../../src/service/schemas/settings';
import { UsageError, argsFromOptions, quote, restValue, tokenize } from '../../../src/core/commands/grammar';
import {
  COMMAND_NAMES,
  COMMAND_SPECS,
  commandHelpLines,
  isCommandName,
  usageOf,
} from '../../../src/core/commands/catalogue';
import { commandHandlers } from '../../../src/core/commands';
import { parseListingsArgs, encodeListingsQuery, decodeListingsQuery } from '../../../src/core/commands/listings';
import { parseListingArgs } from '../../../src/core/commands/listing';
import { parseAnalyticsArgs } from '../../../src/core/commands/analytics';
import { parseHistoryArgs } from '../../../src/core/commands/history';

describe('tokenize', () => {
  test('bare words, key:value pairs and quoted values with spaces', () => {
    expect(tokenize('  show  city:"San Antonio" type:for_sale "two words" ')).toEqual([
      { value: 'show' },
      { key: 'city', value: 'San Antonio' },
      { key: 'type', value: 'for_sale' },
      { value: 'two words' },
    ]);
  });

  test('typographic quotes, escapes, URLs', () => {
    expect(tokenize('city:\u201cNew York\u201d')).toEqual([{ key: 'city', value: 'New York' }]);
    expect(tokenize('Description:"say \\"hi\\""')).toEqual([{ key: 'Description', value: 'say "hi"' }]);
    expect(tokenize('url:https://x.test/a?b=c')).toEqual([{ key: 'url', value: 'https://x.test/a?b=c' }]);
    expect(tokenize('https://x.test/a')).toEqual([{ value: 'https://x.test/a' }]);
    expect(tokenize('"a:b"')).toEqual([{ value: 'a:b' }]);
  });

  test('quote round-trips through tokenize', () => {
    for (const v of ['plain', 'two words', 'with "quotes"', 'back\\slash', '']) {
      expect(tokenize(`k:${quote(v)}`)).toEqual([{ key: 'k', value: v }]);
    }
  });

  test('restValue unquotes one quoted value and keeps free text as typed', () => {
    expect(restValue('"You are helpful"')).toBe('You are helpful');
    expect(restValue('You are "very" helpful')).toBe('You are "very" helpful');
  });
});

describe('command catalogue', () => {
  test('every handler is a command of the catalogue, and every command has a usage', () => {
    for (const name of Object.keys(commandHandlers())) expect(isCommandName(name)).toBe(true);
    expect(COMMAND_SPECS.map((s) => s.name).sort()).toEqual([
      'analytics',
      'ask',
      'chatbot',
      'handoff',
      'history',
      'listing',
      'listings',
    ]);
    for (const s of COMMAND_SPECS) {
      expect(s.usage).toMatch(/Usage/);
      expect(s.summary.length).toBeLessThanOrEqual(100);
    }
  });

  test('listings options and chatbot set field choices mirror the grammar', () => {
    const listings = COMMAND_SPECS.find((s) => s.name === 'listings');
    expect(listings?.options.map((o) => o.name)).toEqual(['city', 'type', 'mls', 'page']);
    expect(listings?.options.find((o) => o.name === 'type')?.choices?.map((c) => c.value)).toEqual([
      'for_sale',
      'for_rent',
    ]);
    const set = COMMAND_SPECS.find((s) => s.name === 'chatbot')?.subcommands.find((s) => s.name === 'set');
    expect(set?.options.find((o) => o.name === 'field')?.choices?.map((c) => c.value)).toEqual(
      SETTING_FIELDS.map((f) => f.name),
    );
  });

  test('argsFromOptions renders options as the text grammar, which parses back', () => {
    const text = argsFromOptions('listings', undefined, { city: 'San Antonio', type: 'for_rent', page: 2 });
    expect(text).toBe('city:"San Antonio" type:for_rent page:2');
    expect(parseListingsArgs(text)).toEqual({ city: 'San Antonio', saleType: 'for_rent', page: 2 });
    expect(argsFromOptions('chatbot', 'set', { field: 'Temperature', value: '1' })).toBe('set Temperature 1');
    const upd = argsFromOptions('listing', 'update', { mls: 'TX 1', fields: 'Status:Sold' });
    expect(parseListingArgs(upd)).toEqual({
      sub: 'update',
      key: { keyType: 'MLSNumber', key: 'TX 1' },
      pairs: { Status: 'Sold' },
    });
  });
});

describe('argument parsers', () => {
  const usageErr = (fn: () => unknown): UsageError => {
    try {
      fn();
    } catch (e) {
      if (e instanceof UsageError) return e;
      throw e;
    }
    throw new Error('expected a UsageError');
  };

  test('listings: errors name the option and carry the usage', () => {
    const e1 = usageErr(() => parseListingsArgs('type:for_lease'));
    expect(e1.message).toMatch(/type/);
    expect(e1.usage).toBe(usageOf('listings'));
    expect(usageErr(() => parseListingsArgs('page:0')).message).toMatch(/page/);
    expect(usageErr(() => parseListingsArgs('page:two')).message).toMatch(/page/);
    expect(usageErr(() => parseListingsArgs('colour:red')).message).toMatch(/colour/);
    expect(parseListingsArgs('Austin type:"for sale"')).toEqual({ city: 'Austin', saleType: 'for_sale', page: 1 });
  });

  test('listings page value encodes filters compactly and decodes back', () => {
    const q = { city: 'San Antonio|x', saleType: 'for_sale' as const, mls: 'TX-1', page: 3 };
    const v = encodeListingsQuery(q);
    expect(v.length).toBeLessThan(60);
    expect(decodeListingsQuery(v)).toEqual(q);
    expect(decodeListingsQuery('nonsense')).toBeUndefined();
  });

  test('listing: keys and pairs', () => {
    expect(parseListingArgs('show id:42')).toEqual({ sub: 'show', key: { keyType: 'ListingId', key: '42' } });
    expect(parseListingArgs('delete url:https://x.test/1')).toEqual({
      sub: 'delete',
      key: { keyType: 'URL', key: 'https://x.test/1' },
    });
    expect(parseListingArgs('create SaleType:for_sale AreaUnit:"Square Feet"')).toEqual({
      sub: 'create',
      pairs: { SaleType: 'for_sale', AreaUnit: 'Square Feet' },
    });
    expect(usageErr(() => parseListingArgs('show')).message).toMatch(/id:<ListingId>/);
    expect(usageErr(() => parseListingArgs('show colour:red')).message).toMatch(/colour:red/);
    expect(usageErr(() => parseListingArgs('show url:notaurl')).message).toMatch(/url/);
    expect(usageErr(() => parseListingArgs('create AreaUnit:Square Feet')).message).toMatch(/"Feet".*Quote/);
    expect(usageErr(() => parseListingArgs('frobnicate id:1')).message).toMatch(/frobnicate/);
  });

  test('analytics: dates validated, defaults to the last 30 days', () => {
    const now = Date.parse('2024-05-31T12:00:00Z');
    expect(parseAnalyticsArgs('', now)).toEqual({ from: '2024-05-02', to: '2024-05-31' });
    expect(parseAnalyticsArgs('2024-01-01 2024-01-31', now)).toEqual({ from: '2024-01-01', to: '2024-01-31' });
    expect(parseAnalyticsArgs('from:2024-05-10', now)).toEqual({ from: '2024-05-10', to: '2024-05-31' });
    expect(usageErr(() => parseAnalyticsArgs('2024-13-01', now)).message).toMatch(/from.*not a calendar date/);
    expect(usageErr(() => parseAnalyticsArgs('yesterday', now)).message).toMatch(/from.*YYYY-MM-DD/);
    expect(usageErr(() => parseAnalyticsArgs('2024-02-01 2024-01-01', now)).message).toMatch(
      /from must be on or before to/,
    );
    expect(usageErr(() => parseAnalyticsArgs('2024-01-01 2024-01-02 2024-01-03', now)).message).toMatch(/Too many/);
  });

  test('history: self by default, explicit kinds', () => {
    expect(parseHistoryArgs('', 'U1')).toEqual({ kind: 'user', id: 'U1' });
    expect(parseHistoryArgs('42', 'U1')).toEqual({ kind: 'either', id: '42' });
    expect(parseHistoryArgs('user:U9', 'U1')).toEqual({ kind: 'user', id: 'U9' });
    expect(parseHistoryArgs('conversation:7', 'U1')).toEqual({ kind: 'conversation', id: '7' });
    expect(usageErr(() => parseHistoryArgs('session:7', 'U1')).message).toMatch(/session/);
    expect(usageErr(() => parseHistoryArgs('a b', 'U1')).message).toMatch(/one id/);
  });
});

describe('the catalogue is the one command list', () => {
  test('names every command core answers (ask and handoff are built into the bridge), once', () => {
    expect([...COMMAND_NAMES].sort()).toEqual(['ask', 'handoff', ...Object.keys(commandHandlers())].sort());
    expect(new Set(COMMAND_NAMES).size).toBe(COMMAND_NAMES.length);
    expect(isCommandName('listings')).toBe(true);
    expect(isCommandName('press')).toBe(false);
  });

  test('help lines show each command with its usage hint and summary; summaries fit Slack and Discord', () => {
    const help = commandHelpLines().join('\n');
    for (const spec of COMMAND_SPECS) {
      expect(help).toContain(`/${spec.name} ${spec.usageHint}`);
      expect(help).toContain(spec.summary);
      expect(spec.summary.length).toBeLessThanOrEqual(100);
      expect(spec.usage).toBe(usageOf(spec.name));
    }
  });
});

describe('every command of the catalogue', () => {
  test.each(COMMAND_SPECS.map((s) => [s.name, s] as const))(
    '/%s: usage, subcommands and options round-trip',
    (_n, spec) => {
      expect(usageOf(spec.name)).toBe(spec.usage);
      expect(spec.usage).toMatch(/Usage/);
      expect(spec.usage).toContain(`/${spec.name}`);
      expect(spec.summary.length).toBeLessThanOrEqual(100);
      // Each subcommand is written in the usage, and typed options render as the text a user types.
      const variants =
        spec.subcommands.length > 0
          ? spec.subcommands.map((sub) => ({ sub: sub.name as string | undefined, options: sub.options }))
          : [{ sub: undefined, options: spec.options }];
      for (const { sub, options } of variants) {
        if (sub) expect(spec.usage).toContain(`/${spec.name} ${sub}`);
        const values = Object.fromEntries(options.map((o) => [o.name, o.type === 'integer' ? 2 : `v-${o.name}`]));
        const tokens = tokenize(argsFromOptions(spec.name, sub, values));
        if (sub) expect(tokens[0]).toEqual({ value: sub });
        for (const o of options) {
          const value = String(values[o.name]);
          expect(tokens).toContainEqual(o.positional ? { value } : { key: o.name, value });
        }
      }
    },
  );
});
