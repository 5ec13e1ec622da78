import {
  listingCommand,
  LISTING_CREATE_FORM,
  LISTING_DELETE_CANCEL,
  LISTING_DELETE_CONFIRM,
  LISTING_UPDATE_FORM,
} from '../../../src/core/commands/listing';
import { VIEWING_ACTION } from '../../../src/core/listings/card-actions';
import { usageOf } from '../../../src/core/commands/catalogue';
import type { Listing } from '../../../src/service/schemas/listings';
import { startCommandEnv, type CommandEnv } from './support';

let env: CommandEnv;
let sample: Listing;
beforeAll(async () => {
  env = await startCommandEnv();
  const page = await env.ctx.client.listListings({
    chatbotId: env.ctx.config.chatbotId,
    city: 'Denver',
    page: 1,
    pageSize: 5,
  });
  const first = page.items[0];
  if (!first) throw new Error('no demo listing in Denver');
  sample = first;
});
afterAll(async () => {
  await env.close();
});

const field = (
  card: { fields: Array<{ label: string; value: string }> } | undefined,
  label: string,
): string | undefined => card?.fields.find((f) => f.label === label)?.value;

const PAIRS = [
  'SaleType:for_sale',
  'Status:Active',
  'CurrencySymbol:$',
  'PropertyType:House',
  'Bedrooms:3',
  'Bathrooms:2.5',
  'Url:https://homes.example.com/test/12-elm-st',
  'MLSNumber:TST-0001',
  'YearBuilt:1999',
  'DaysOnMarket:4',
  'LotArea:5000',
  'BuildingArea:1850',
  'AreaUnit:"Square Feet"',
  'ParkingSpots:2',
  'Address:"12 Elm St"',
  'City:Boulder',
  'State:CO',
  'SalePrice:450000',
  'Images:https://img.example.com/a.jpg,https://img.example.com/b.jpg',
  'ExtensionColumn:"Heating=Gas;Pool=No"',
].join(' ');

describe('show (everyone)', () => {
  test('by MLS, id and URL', async () => {
    for (const key of [`mls:${sample.mlsNumber}`, `id:${sample.id}`, `url:${sample.url}`]) {
      const inv = await env.run(listingCommand, env.alice, `show ${key}`);
      const card = inv.last().cards?.[0];
      expect(card?.title).toBe(sample.address);
      expect(field(card, 'MLS')).toBe(sample.mlsNumber);
      expect(JSON.stringify(card)).not.toContain(`ID ${sample.id}`);
      expect(card?.badge).toBe('For sale');
      // The photos are a gallery, grouped facts follow; no photo URL or coordinates as a fact.
      expect(card?.photos).toEqual(sample.images);
      expect(card?.groups?.map((g) => g.title)).toEqual(['Price and size', 'The home', 'The neighbourhood', 'Links']);
      for (const f of card?.fields ?? []) {
        expect(sample.images).not.toContain(f.value);
        expect(f.value).not.toMatch(/^-?\d+\.\d+, -?\d+\.\d+$/);
      }
      const map = card?.groups?.find((g) => g.title === 'Links')?.fields.find((f) => f.label === 'Map');
      if (sample.latitude !== undefined)
        expect(map?.value).toMatch(/^https:\/\/www\.google\.com\/maps\/search\/\?api=1&query=/);
      expect(field(card, 'Description')).toBe(sample.description);
      // The price per unit of area names its unit and shows cents ("$353.60", never "$353.6").
      expect(field(card, 'Price per sq ft')).toMatch(/^\$\d{1,3}(,\d{3})*\.\d{2}$/);
    }
  });

  test('offers next steps: a viewing for everyone, Edit (the prefilled form) for admins', async () => {
    const forUser = (await env.run(listingCommand, env.alice, `show mls:${sample.mlsNumber}`)).last();
    expect(forUser.text).toBe('');
    expect(forUser.buttons?.map((b) => b.label)).toEqual(['Ask about a viewing']);
    expect(forUser.buttons?.[0]?.action).toBe(VIEWING_ACTION);
    expect(forUser.buttons?.[0]?.value).toContain(sample.mlsNumber);
    const forAdmin = (await env.run(listingCommand, env.admin, `show mls:${sample.mlsNumber}`)).last();
    const edit = forAdmin.buttons?.find((b) => b.label === 'Edit');
    expect(edit).toBeDefined();
    const pressed = await env.action(listingCommand, edit!.action, edit!.value, env.admin);
    expect(pressed.forms[0]?.id).toBe(LISTING_UPDATE_FORM);
    expect(pressed.forms[0]?.fields.find((f) => f.name === 'MLSNumber')?.initial).toBe(sample.mlsNumber);
    // A non-admin pressing an old Edit button is refused.
    const refused = await env.action(listingCommand, edit!.action, edit!.value, env.alice);
    expect(refused.forms).toHaveLength(0);
  });

  test('an unknown key says nothing matches', async () => {
    const inv = await env.run(listingCommand, env.alice, 'show mls:NOPE-1');
    expect(inv.replies[0]?.ephemeral).toBe(true);
    expect(inv.last().text).toMatch(/No listing matches mls:NOPE-1/);
  });

  test('bad keys name the problem and show the usage', async () => {
    for (const [args, named] of [
      ['show', 'id:<ListingId>'],
      ['show colour:red', 'colour:red'],
      ['show url:ftp-thing', 'url'],
      ['explode id:1', 'explode'],
    ] as const) {
      const inv = await env.run(listingCommand, env.alice, args);
      expect(inv.last().text).toContain(named);
      expect(inv.last().text).toContain(usageOf('listing'));
    }
  });

  test('help', async () => {
    const inv = await env.run(listingCommand, env.alice, 'help');
    expect(inv.last().text).toBe(usageOf('listing'));
  });
});

describe('writes (admins)', () => {
  test('non-admins are refused clearly and nothing changes', async () => {
    const before = await env.ctx.client.listListings({ chatbotId: env.ctx.config.chatbotId, page: 1, pageSize: 1 });
    for (const args of [
      `create ${PAIRS}`,
      `update mls:${sample.mlsNumber} Status:Sold`,
      `delete mls:${sample.mlsNumber}`,
      'create',
    ]) {
      const inv = await env.run(listingCommand, env.alice, args);
      expect(inv.replies[0]?.ephemeral).toBe(true);
      expect(inv.last().text).toMatch(/only admins may (create|update|delete) listings/i);
      expect(inv.forms).toHaveLength(0);
    }
    const after = await env.ctx.client.listListings({ chatbotId: env.ctx.config.chatbotId, page: 1, pageSize: 1 });
    expect(after.total).toBe(before.total);
  });

  test('create by pairs, show, update, delete with confirm', async () => {
    const created = await env.run(listingCommand, env.admin, `create ${PAIRS}`);
    const m = /Listing created: ID (\S+)/.exec(created.last().text);
    expect(m).not.toBeNull();
    const id = m?.[1] ?? '';

    const shown = await env.run(listingCommand, env.alice, `show id:${id}`);
    const card = shown.last().cards?.[0];
    expect(card?.title).toBe('12 Elm St');
    expect(field(card, 'Price')).toBe('$450,000');
    expect(field(card, 'Beds / baths')).toBe('3 bd / 2.5 ba');
    expect(field(card, 'Area')).toBe('1,850 sq ft');
    expect(card?.badge).toBe('For sale');
    expect(field(card, 'Heating')).toBe('Gas');
    expect(card?.imageUrl).toBe('https://img.example.com/a.jpg');
    // The type is one of the detailed card's fields, not repeated under them.
    expect(field(card, 'Type')).toBe('House');
    expect(card?.footer).toBeUndefined();

    const updated = await env.run(listingCommand, env.admin, 'update mls:TST-0001 Status:Sold SalePrice:460000');
    expect(updated.last().text).toMatch(/Updated 1 listing for mls:TST-0001 \(Status, SalePrice\)/);
    const again = await env.run(listingCommand, env.alice, `show id:${id}`);
    const card2 = again.last().cards?.[0];
    expect(card2?.badge).toBe('Sold');
    expect(field(card2, 'Price')).toBe('$460,000');
    // the fields not named keep their values
    expect(field(card2, 'Beds / baths')).toBe('3 bd / 2.5 ba');
    expect(field(card2, 'Heating')).toBe('Gas');

    const asked = await env.run(listingCommand, env.admin, `delete id:${id}`);
    const buttons = asked.last().buttons ?? [];
    expect(asked.last().text).toMatch(/Delete 12 Elm St .*cannot be undone/);
    const confirm = buttons.find((b) => b.action === LISTING_DELETE_CONFIRM);
    expect(confirm?.style).toBe('danger');
    expect(buttons.some((b) => b.action === LISTING_DELETE_CANCEL)).toBe(true);
    // asking deleted nothing
    expect((await env.run(listingCommand, env.alice, `show id:${id}`)).last().cards).toHaveLength(1);

    const done = await env.action(listingCommand, LISTING_DELETE_CONFIRM, confirm?.value ?? '', env.admin);
    expect(done.updates[0]?.text).toBe(`Deleted 1 listing (id:${id}).`);
    const gone = await env.run(listingCommand, env.alice, `show id:${id}`);
    expect(gone.last().text).toMatch(/No listing matches/);
    const twice = await env.action(listingCommand, LISTING_DELETE_CONFIRM, confirm?.value ?? '', env.admin);
    expect(twice.updates[0]?.text).toMatch(/Nothing matched id:\S+; nothing was deleted/);
  });

  test('cancel deletes nothing; a non-admin cannot confirm', async () => {
    const asked = await env.run(listingCommand, env.admin, `delete mls:${sample.mlsNumber}`);
    const cancel = asked.last().buttons?.find((b) => b.action === LISTING_DELETE_CANCEL);
    const cancelled = await env.action(listingCommand, LISTING_DELETE_CANCEL, cancel?.value ?? '', env.admin);
    expect(cancelled.updates[0]?.text).toMatch(/cancelled/);
    const confirm = asked.last().buttons?.find((b) => b.action === LISTING_DELETE_CONFIRM);
    const sneaky = await env.action(listingCommand, LISTING_DELETE_CONFIRM, confirm?.value ?? '', env.alice);
    expect(sneaky.last().text).toMatch(/only admins/i);
    const still = await env.run(listingCommand, env.alice, `show mls:${sample.mlsNumber}`);
    expect(still.last().cards).toHaveLength(1);
  });

  test('invalid pairs: every bad field is named, nothing is created', async () => {
    const before = await env.ctx.client.listListings({ chatbotId: env.ctx.config.chatbotId, page: 1, pageSize: 1 });
    const inv = await env.run(
      listingCommand,
      env.admin,
      'create SaleType:for_lease Bedrooms:many Status:Active Colour:red',
    );
    const text = inv.last().text;
    expect(inv.replies[0]?.ephemeral).toBe(true);
    expect(text).toMatch(/SaleType must be one of for_sale, for_rent/);
    expect(text).toMatch(/Bedrooms must be a number/);
    expect(text).toMatch(/unknown field Colour/);
    expect(text).toMatch(/CurrencySymbol is required/);
    expect(text).not.toMatch(/• Status/);
    const after = await env.ctx.client.listListings({ chatbotId: env.ctx.config.chatbotId, page: 1, pageSize: 1 });
    expect(after.total).toBe(before.total);

    const upd = await env.run(listingCommand, env.admin, `update mls:${sample.mlsNumber} Bathrooms:-1 Tours:Virtual`);
    expect(upd.last().text).toMatch(/Bathrooms must be 0 or more/);
    expect(upd.last().text).toMatch(/Tours must be one of OpenHouse, 3D/);
  });
});

describe('forms', () => {
  test('create without pairs opens a form of every field, grouped in fives', async () => {
    const inv = await env.run(listingCommand, env.admin, 'create');
    const form = inv.forms[0];
    expect(form?.id).toBe(LISTING_CREATE_FORM);
    const fields = form?.fields ?? [];
    expect(fields).toHaveLength(32);
    const required = fields
      .filter((f) => f.required)
      .map((f) => f.name)
      .sort();
    expect(required).toEqual(
      [
        'AreaUnit',
        'BuildingArea',
        'Bathrooms',
        'Bedrooms',
        'CurrencySymbol',
        'DaysOnMarket',
        'LotArea',
        'MLSNumber',
        'ParkingSpots',
        'PropertyType',
        'SaleType',
        'Status',
        'Url',
        'YearBuilt',
      ].sort(),
    );
    expect(fields.find((f) => f.name === 'SaleType')?.kind).toBe('select');
    // As an agent fills it: the home first; enumerations in words; usual defaults; placeholders with units.
    expect(fields.slice(0, 5).map((f) => f.name)).toEqual([
      'Address',
      'SalePrice',
      'PropertyType',
      'Bedrooms',
      'Bathrooms',
    ]);
    expect(fields.find((f) => f.name === 'SaleType')?.options?.map((o) => o.label)).toEqual(['For sale', 'For rent']);
    expect(fields.find((f) => f.name === 'Status')?.options?.map((o) => o.label)).toEqual([
      'Active',
      'Coming soon',
      'Sold',
    ]);
    expect(fields.find((f) => f.name === 'Tours')?.options?.map((o) => o.label)).toEqual(['Open house', '3D tour']);
    expect(fields.find((f) => f.name === 'AreaUnit')?.options?.map((o) => o.value)).toEqual([
      'Square Feet',
      'Square Meters',
    ]);
    expect(fields.find((f) => f.name === 'CurrencySymbol')?.initial).toBe('$');
    expect(fields.find((f) => f.name === 'AreaUnit')?.initial).toBe('Square Feet');
    expect(fields.find((f) => f.name === 'BuildingArea')?.hint).toMatch(/square feet/);
    expect(fields.find((f) => f.name === 'RentPrice')?.hint).toMatch(/per month/);
    expect(fields.find((f) => f.name === 'Bedrooms')?.kind).toBe('number');
    const shown = JSON.stringify(fields.map((f) => [f.label, f.hint, f.group, f.options?.map((o) => o.label)]));
    expect(shown).not.toMatch(/for_sale|PreOnMarket|OpenHouse|comma-separated|Key=value|"basics"|"more"/);
    const groups = new Map<string, number>();
    for (const f of fields) groups.set(f.group, (groups.get(f.group) ?? 0) + 1);
    for (const n of groups.values()) expect(n).toBeLessThanOrEqual(5);
  });

  test('a surface without forms is told to use pairs', async () => {
    const inv = await env.run(listingCommand, env.admin, 'create', { forms: false });
    expect(inv.last().text).toMatch(/Field:value pairs/);
  });

  test('submit with invalid values returns field errors; valid values create', async () => {
    const bad = await env.submit(
      listingCommand,
      LISTING_CREATE_FORM,
      '',
      { SaleType: 'for_lease', Bedrooms: 'three', Status: 'Active', Tours: 'Virtual' },
      env.admin,
    );
    expect(bad.result.ok).toBe(false);
    const errors = bad.result.ok ? {} : bad.result.errors;
    // A form names the options in words, as it shows them.
    expect(errors.SaleType).toMatch(/SaleType must be one of For sale, For rent/);
    expect(errors.Tours).toMatch(/Tours must be one of Open house, 3D tour/);
    expect(JSON.stringify(errors)).not.toMatch(/for_sale|for_rent|PreOnMarket|OpenHouse/);
    expect(errors.Bedrooms).toMatch(/Bedrooms must be a number/);
    expect(errors.Url).toMatch(/Url is required/);
    expect(errors.Status).toBeUndefined();
    expect(bad.inv.replies).toHaveLength(0);

    const values: Record<string, string> = {
      SaleType: 'for_rent',
      Status: 'Active',
      CurrencySymbol: '$',
      PropertyType: 'Apartment',
      Bedrooms: '1',
      Bathrooms: '1',
      Url: 'https://homes.example.com/test/form-1',
      MLSNumber: 'FORM-1',
      YearBuilt: '2010',
      DaysOnMarket: '0',
      LotArea: '0',
      BuildingArea: '700',
      AreaUnit: 'Square Feet',
      ParkingSpots: '0',
      RentPrice: '1,800',
      Address: '1 Form Way',
      City: 'Denver',
      Images: '',
      Description: '',
      ExtensionColumn: 'Pets=No',
    };
    const good = await env.submit(listingCommand, LISTING_CREATE_FORM, '', values, env.admin);
    expect(good.result).toEqual({ ok: true });
    expect(good.inv.last().text).toMatch(/Listing created: ID \S+ \(1 Form Way\)/);
    const shown = await env.run(listingCommand, env.alice, 'show mls:FORM-1');
    expect(field(shown.last().cards?.[0], 'Price')).toBe('$1,800 / month');
  });

  test('update opens a prefilled form; submitting part of it updates those fields', async () => {
    const inv = await env.run(listingCommand, env.admin, `update mls:${sample.mlsNumber}`);
    const form = inv.forms[0];
    expect(form?.id).toBe(LISTING_UPDATE_FORM);
    expect(form?.state).toBe(`MLSNumber:${sample.mlsNumber}`);
    const init = (name: string): string | undefined => form?.fields.find((f) => f.name === name)?.initial;
    expect(init('MLSNumber')).toBe(sample.mlsNumber);
    expect(init('Address')).toBe(sample.address);
    expect(init('SaleType')).toBe(sample.saleType);
    expect(init('AreaUnit')).toBe('Square Feet');
    expect(init('Images')).toBe(sample.images.join('\n'));

    const bad = await env.submit(
      listingCommand,
      LISTING_UPDATE_FORM,
      form?.state ?? '',
      { YearBuilt: '19x9' },
      env.admin,
    );
    expect(bad.result.ok ? {} : bad.result.errors).toEqual({
      YearBuilt: expect.stringMatching(/YearBuilt must be a number/),
    });

    const ok = await env.submit(
      listingCommand,
      LISTING_UPDATE_FORM,
      form?.state ?? '',
      { PropertyType: 'Loft', DaysOnMarket: '77' },
      env.admin,
    );
    expect(ok.result).toEqual({ ok: true });
    expect(ok.inv.last().text).toMatch(/Updated 1 listing/);
    const after = await env.ctx.client.listListings({
      chatbotId: env.ctx.config.chatbotId,
      mls: sample.mlsNumber,
      page: 1,
      pageSize: 5,
    });
    expect(after.items[0]?.propertyType).toBe('Loft');
    expect(after.items[0]?.daysOnMarket).toBe(77);
    expect(after.items[0]?.address).toBe(sample.address);
  });

  test('a non-admin submit is refused with a field error', async () => {
    const res = await env.submit(listingCommand, LISTING_CREATE_FORM, '', { SaleType: 'for_sale' }, env.alice);
    expect(res.result.ok).toBe(false);
    expect(JSON.stringify(res.result)).toMatch(/Only admins/);
  });
});
