/** Shared wire schemas: field lists, messages that name the field, decoding helpers. */
import {
  chatbotSettingsSchema,
  clientAskRequestSchema,
  coerceSettingValue,
  describeIssues,
  fieldIssues,
  findSettingName,
  listingCreateSchema,
  listingFromWireSchema,
  listingUpdateSchema,
  parseExtensionColumns,
  parseImages,
  SETTING_FIELDS,
  settingsFieldsSchema,
} from '../../src/service/schemas';
import { sampleListing } from './contract';

function messageOf(
  schema: { safeParse(v: unknown): { success: boolean; error?: import('zod').ZodError } },
  value: unknown,
): string {
  const r = schema.safeParse(value);
  expect(r.success).toBe(false);
  return describeIssues(fieldIssues(r.error!));
}

test('SETTING_FIELDS lists exactly the Edit fields, each with a kind and group', () => {
  expect(SETTING_FIELDS.map((f) => f.name).sort()).toEqual(Object.keys(settingsFieldsSchema.shape).sort());
  expect(SETTING_FIELDS).toHaveLength(36);
  const kinds = Object.fromEntries(SETTING_FIELDS.map((f) => [f.name, f.kind]));
  expect(kinds).toMatchObject({
    Temperature: 'integer',
    ChatBubbleAlign: 'integer',
    RateLimitCount: 'integer',
    RateLimitTime: 'integer',
    MessageLimit: 'integer',
    ChatBubbleColor: 'color',
    UserMessageColor: 'color',
    EnablePushToTalk: 'boolean',
    TalkToHumanEmail: 'email',
    ChatbotPrivacyPolicyUrl: 'url',
  });
  for (const f of SETTING_FIELDS)
    expect(['model and prompt', 'appearance', 'contact and handoff', 'limits', 'privacy']).toContain(f.group);
});

test('settings: rgb colours, integers and booleans are checked with named messages', () => {
  expect(
    chatbotSettingsSchema.safeParse({ serialNumber: 'x', ChatBubbleColor: 'rgb(0, 255, 10)', MessageLimit: -1 })
      .success,
  ).toBe(true);
  expect(messageOf(chatbotSettingsSchema, { serialNumber: 'x', UserMessageColor: 'rgb(1,2)' })).toMatch(
    /UserMessageColor must look like rgb\(37,99,235\)/,
  );
  expect(messageOf(chatbotSettingsSchema, { serialNumber: 'x', RateLimitTime: '60' })).toMatch(
    /RateLimitTime must be a whole number/,
  );
  expect(messageOf(chatbotSettingsSchema, { serialNumber: 'x', MessageLimit: -2 })).toMatch(
    /MessageLimit must be a whole number, -1 \(unlimited\) or more/,
  );
  expect(messageOf(chatbotSettingsSchema, { serialNumber: 'x', VerifyDomain: 'yes' })).toMatch(
    /VerifyDomain must be true or false/,
  );
  expect(messageOf(chatbotSettingsSchema, { serialNumber: 'x', TalkToHumanEmail: 'nobody' })).toMatch(
    /TalkToHumanEmail must be an e-mail address/,
  );
  expect(messageOf(chatbotSettingsSchema, { Name: 'x' })).toMatch(/serialNumber is required/);
});

test('coerceSettingValue turns typed text into the field kind', () => {
  expect(coerceSettingValue('Temperature', ' 2 ')).toBe(2);
  expect(coerceSettingValue('VerifyDomain', 'yes')).toBe(true);
  expect(coerceSettingValue('Temperature', 'hot')).toBe('hot'); // left for the schema to refuse
  expect(findSettingName('chatbubblecolor')).toBe('ChatBubbleColor');
  expect(findSettingName('nope')).toBeUndefined();
});

test('ClientAsk: fileIds rules of 4.2', () => {
  expect(
    clientAskRequestSchema.safeParse({ sessionID: 1, content: '', chatAskType: 'Image', fileIds: [1, '2', 3] }).success,
  ).toBe(true);
  expect(
    clientAskRequestSchema.safeParse({ sessionID: 1, content: '', chatAskType: 'Audio', fileIds: [1] }).success,
  ).toBe(true);
  expect(
    messageOf(clientAskRequestSchema, { sessionID: 1, content: 'x', chatAskType: 'Audio', fileIds: [1, 2] }),
  ).toMatch(/exactly one file when chatAskType is Audio/);
  expect(messageOf(clientAskRequestSchema, { sessionID: 1, content: '', chatAskType: 'Image' })).toMatch(
    /at least one file/,
  );
  expect(messageOf(clientAskRequestSchema, { sessionID: 1, content: 'x', chatAskType: 'Gif' })).toMatch(
    /chatAskType must be one of Text, Audio, Image, Video/,
  );
});

test('listings: enumerations named with allowed values; ExtensionColumn items; update needs Key and KeyType', () => {
  const base = sampleListing('demo');
  expect(listingCreateSchema.safeParse(base).success).toBe(true);
  expect(messageOf(listingCreateSchema, { ...base, AreaUnit: 'acres' })).toMatch(
    /AreaUnit must be one of Square Feet, Square Meters/,
  );
  expect(messageOf(listingCreateSchema, { ...base, Status: 'Pending' })).toMatch(
    /Status must be one of Active, PreOnMarket, Sold/,
  );
  expect(messageOf(listingCreateSchema, { ...base, Tours: 'VR' })).toMatch(/Tours must be one of OpenHouse, 3D/);
  expect(messageOf(listingCreateSchema, { ...base, SpaceType: 'Flat' })).toMatch(
    /SpaceType must be one of Entire place, Room/,
  );
  expect(messageOf(listingCreateSchema, { ...base, ExtensionColumn: [{ key: 'a', value: 'b' }] })).toMatch(
    /ExtensionColumn Key is required/,
  );
  expect(messageOf(listingUpdateSchema, base)).toMatch(/Key is required.*KeyType is required/);
  expect(messageOf(listingCreateSchema, { ...base, Bedrooms: '3' })).toMatch(/Bedrooms must be a number/);
});

test('list item decoding: empty strings become undefined, numbers from strings', () => {
  const l = listingFromWireSchema.parse({
    ID: '5',
    City: '',
    Bedrooms: '3',
    RentPrice: '',
    SalePrice: '12.50',
    LATITUDE: 0,
    Images: '',
    ExtensionColumn: '[]',
  });
  expect(l).toEqual({ id: 5, bedrooms: 3, salePrice: 12.5, latitude: 0, images: [], extensionColumns: [] });
});

test('parseImages and parseExtensionColumns accept the forms seen in the wild', () => {
  expect(parseImages('["a","b"]')).toEqual(['a', 'b']);
  expect(parseImages('a, b,,c')).toEqual(['a', 'b', 'c']);
  expect(parseExtensionColumns('[{"Key":"k","value":1}]')).toEqual([{ key: 'k', value: '1' }]);
  expect(parseExtensionColumns('{"Pool":"yes"}')).toEqual([{ key: 'Pool', value: 'yes' }]);
  expect(parseExtensionColumns('not json')).toEqual([]);
});
