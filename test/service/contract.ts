/**
 * The client's operation contract: normal behaviour any faithful chatbot service shows. Runs
 * against every target (the in-memory fake in client-contract.test.ts; the local chatbot service
 * adds its own target). Scripted failure cases live in the *.test.ts files, not here.
 */
import { randomUUID } from 'node:crypto';
import { ChatbotClient } from '../../src/service/client';
import { ServiceError } from '../../src/service/errors';
import type { AnswerEvent } from '../../src/service/answer-events';
import type { ListingInput } from '../../src/service/schemas/listings';

export interface ContractTarget {
  /** First family base URL; /v1 is served under it too unless v1BaseUrl says otherwise. */
  baseUrl: string;
  v1BaseUrl?: string;
  credentials: { secretKey?: string; sessionKey?: string; apiKey?: string };
  chatbotId: string;
  close(): Promise<void>;
}

export function sampleListing(serial: string, overrides: Partial<ListingInput> = {}): ListingInput {
  const mls = `MLS-${randomUUID().slice(0, 8)}`;
  return {
    SerialNumber: serial,
    SaleType: 'for_sale',
    Status: 'Active',
    CurrencySymbol: '$',
    PropertyType: 'Condo',
    Bedrooms: 2,
    Bathrooms: 1.5,
    Url: `https://homes.example.com/listing/${mls}`,
    MLSNumber: mls,
    YearBuilt: 1998,
    DaysOnMarket: 12,
    LotArea: 0,
    BuildingArea: 980,
    AreaUnit: 'Square Feet',
    ParkingSpots: 1,
    Images: ['https://img.example.com/a.jpg', 'https://img.example.com/b.jpg'],
    ExtensionColumn: [{ Key: 'View', value: 'Bay' }],
    City: 'Contractville',
    State: 'CA',
    Address: '1 Test Way',
    ZIP: '94000',
    Latitude: 37.5,
    Longitude: -122.25,
    SalePrice: 725000,
    Description: 'Bright corner unit',
    ...overrides,
  };
}

async function collect(it: AsyncIterable<AnswerEvent>): Promise<AnswerEvent[]> {
  const out: AnswerEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

function checkStream(events: AnswerEvent[]): { text: string; answer: string } {
  const last = events[events.length - 1];
  expect(last?.type).toBe('final');
  expect(events.filter((e) => e.type === 'final')).toHaveLength(1);
  const deltas = events.filter((e): e is Extract<AnswerEvent, { type: 'delta' }> => e.type === 'delta');
  expect(deltas.length).toBeGreaterThan(0);
  const text = deltas.map((d) => d.text).join('');
  return { text, answer: last.type === 'final' ? last.answer : '' };
}

export function runClientContract(name: string, makeTarget: () => Promise<ContractTarget>): void {
  describe(`client contract: ${name}`, () => {
    let target: ContractTarget;
    let client: ChatbotClient;

    beforeAll(async () => {
      target = await makeTarget();
      client = new ChatbotClient({
        baseUrl: target.baseUrl,
        v1BaseUrl: target.v1BaseUrl,
        ...target.credentials,
        timeoutMs: 10000,
        idleTimeoutMs: 10000,
      });
    });
    afterAll(async () => {
      await target?.close();
    });

    test('getSession returns a new integer session id each time', async () => {
      const a = await client.getSession(target.chatbotId);
      const b = await client.getSession(target.chatbotId);
      expect(Number.isInteger(a)).toBe(true);
      expect(a).not.toBe(b);
    });

    /** Edits the chatbot's AnswerSuffix (the one setting whose effect an answer shows), runs `fn`, then clears it. */
    async function withAnswerSuffix<T>(suffix: string, fn: () => Promise<T>): Promise<T> {
      await client.editChatbot({ serialNumber: target.chatbotId, AnswerSuffix: suffix });
      try {
        return await fn();
      } finally {
        await client.editChatbot({ serialNumber: target.chatbotId, AnswerSuffix: '' });
      }
    }

    test('ask returns a whole answer: text, then the configured suffix at its very end', async () => {
      const marker = `-- end ${randomUUID().slice(0, 8)}`;
      const answer = await withAnswerSuffix(marker, async () => {
        const sessionId = await client.getSession(target.chatbotId);
        return client.ask({ sessionId, content: 'What listings do you have?' });
      });
      expect(Number.isInteger(answer.messageId)).toBe(true);
      expect(answer.noAnswer).toBe(false);
      expect(answer.content.endsWith(marker)).toBe(true);
      // Words of an answer before the suffix, not just the suffix.
      expect(answer.content.slice(0, -marker.length).trim()).toMatch(/\w{3,}/);
      expect(answer.totalTokens).toBeGreaterThan(0);
    });

    test('askStream: deltas concatenate to the final answer, one final at the end', async () => {
      const sessionId = await client.getSession(target.chatbotId);
      const events = await collect(client.askStream({ sessionId, content: 'Tell me about a condo' }));
      const { text, answer } = checkStream(events);
      expect(text).toBe(answer);
    });

    test('editChatbot applies a valid change: the next answers show it', async () => {
      const marker = `Edited ${randomUUID().slice(0, 8)}`;
      const events = await withAnswerSuffix(marker, async () => {
        // Several fields at once, as /chatbot edit sends them; AnswerSuffix is the one an answer shows.
        await expect(
          client.editChatbot({
            serialNumber: target.chatbotId,
            WelcomeMessage: 'Hello from the contract test',
            ChatBubbleColor: 'rgb(37,99,235)',
            Temperature: 1,
            AnswerSuffix: marker,
          }),
        ).resolves.toBeUndefined();
        const sessionId = await client.getSession(target.chatbotId);
        return collect(client.askStream({ sessionId, content: 'Tell me about a condo' }));
      });
      const { text, answer } = checkStream(events);
      expect(text).toBe(answer);
      expect(answer.endsWith(marker)).toBe(true);
      // Cleared again: a new answer ends without it.
      const sessionId = await client.getSession(target.chatbotId);
      const after = await client.ask({ sessionId, content: 'Tell me about a condo' });
      expect(after.content).not.toContain(marker);
    });

    test('editChatbot on an unknown chatbot is refused with a ServiceError', async () => {
      await expect(
        client.editChatbot({ serialNumber: `no-such-bot-${randomUUID()}`, Name: 'x' }),
      ).rejects.toBeInstanceOf(ServiceError);
    });

    test('listModels returns models with string keys', async () => {
      const models = await client.listModels();
      expect(models.length).toBeGreaterThan(0);
      for (const m of models) {
        expect(typeof m.key).toBe('string');
        expect(typeof m.name).toBe('string');
        expect(typeof m.enabled).toBe('boolean');
      }
    });

    test('listing lifecycle: create, list (decoded), update, delete', async () => {
      const input = sampleListing(target.chatbotId);
      const id = await client.createListing(input);
      expect(id).toMatch(/\S/);

      const page = await client.listListings({ chatbotId: target.chatbotId, mls: input.MLSNumber });
      expect(page.total).toBe(1);
      expect(page.items).toHaveLength(1);
      const listing = page.items[0];
      expect(String(listing.id)).toBe(id);
      expect(listing).toMatchObject({
        mlsNumber: input.MLSNumber,
        bedrooms: 2,
        bathrooms: 1.5,
        yearBuilt: 1998,
        buildingArea: 980,
        parkingSpots: 1,
        city: 'Contractville',
        salePrice: 725000,
        latitude: 37.5,
        longitude: -122.25,
        url: input.Url,
      });
      expect(listing.images).toEqual(input.Images);
      expect(listing.extensionColumns).toEqual([{ key: 'View', value: 'Bay' }]);

      const updated = await client.updateListing({
        ...input,
        Status: 'Sold',
        Bedrooms: 3,
        Key: id,
        KeyType: 'ListingId',
      });
      expect(updated).toBe(1);
      const after = await client.listListings({ chatbotId: target.chatbotId, mls: input.MLSNumber });
      expect(after.items[0]).toMatchObject({ status: 'Sold', bedrooms: 3 });

      const deleted = await client.deleteListings(target.chatbotId, [input.MLSNumber], 'MLSNumber');
      expect(deleted).toBe(1);
      const gone = await client.listListings({ chatbotId: target.chatbotId, mls: input.MLSNumber });
      expect(gone.items).toHaveLength(0);
      expect(gone.total).toBe(0);
    });

    test('listListings filters by city and sale type, and pages', async () => {
      const city = `City-${randomUUID().slice(0, 6)}`;
      const keys: string[] = [];
      for (let i = 0; i < 3; i++)
        keys.push(await client.createListing(sampleListing(target.chatbotId, { City: city })));
      keys.push(
        await client.createListing(
          sampleListing(target.chatbotId, { City: city, SaleType: 'for_rent', RentPrice: 2500, SalePrice: undefined }),
        ),
      );
      const rent = await client.listListings({ chatbotId: target.chatbotId, city, saleType: 'for_rent' });
      expect(rent.items.map((l) => l.rentPrice)).toEqual([2500]);
      const p1 = await client.listListings({
        chatbotId: target.chatbotId,
        city,
        saleType: 'for_sale',
        page: 1,
        pageSize: 2,
      });
      const p2 = await client.listListings({
        chatbotId: target.chatbotId,
        city,
        saleType: 'for_sale',
        page: 2,
        pageSize: 2,
      });
      expect(p1.items).toHaveLength(2);
      expect(p2.items).toHaveLength(1);
      expect(p1.total).toBe(3);
      expect(new Set([...p1.items, ...p2.items].map((l) => l.id)).size).toBe(3);
      expect(await client.deleteListings(target.chatbotId, keys, 'ListingId')).toBe(4);
    });

    test('updateListing with an unknown key is refused naming the key', async () => {
      const input = sampleListing(target.chatbotId);
      const err = await client
        .updateListing({ ...input, Key: 'MLS-does-not-exist', KeyType: 'MLSNumber' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServiceError);
      expect((err as ServiceError).message).toContain('MLS-does-not-exist');
    });

    test('upload returns an integer FileStoreId', async () => {
      const id = await client.upload('photo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
      expect(Number.isInteger(id)).toBe(true);
      expect(id).toBeGreaterThan(0);
    });

    test('a wrong secret key is refused with a ServiceError', async () => {
      const bad = new ChatbotClient({ baseUrl: target.baseUrl, secretKey: 'wrong-key', retries: 0 });
      await expect(bad.getSession(target.chatbotId)).rejects.toBeInstanceOf(ServiceError);
    });

    test('v1: create, list and update a chatbot', async () => {
      const name = `Contract bot ${randomUUID().slice(0, 6)}`;
      const created = await client.v1.createChatbot({
        name,
        description: 'made by the contract test',
        settings: { language: 'en' },
      });
      expect(created).toMatchObject({ name, status: 'draft' });
      expect(created.id).toMatch(/\S/);
      const list = await client.v1.listChatbots({ limit: 100 });
      expect(list.items.map((b) => b.id)).toContain(created.id);
      expect(list.meta.limit).toBe(100);
      const updated = await client.v1.updateChatbot(created.id, { name: `${name} (renamed)` });
      expect(updated).toMatchObject({ id: created.id, name: `${name} (renamed)` });
    });

    test('v1: conversation, message, stream, transcript and user list', async () => {
      const userId = `user-${randomUUID().slice(0, 6)}`;
      const conv = await client.v1.startConversation({
        chatbotId: target.chatbotId,
        userId,
        metadata: { from: 'contract' },
      });
      expect(conv).toMatchObject({ chatbotId: target.chatbotId, status: 'active' });
      const sent = await client.v1.sendMessage(conv.id, 'Any condos?');
      expect(sent.conversationId).toBe(conv.id);
      expect(typeof sent.response.content).toBe('string');

      const events = await collect(client.v1.sendMessageStream(conv.id, 'And houses?'));
      const { text, answer } = checkStream(events);
      expect(text).toBe(answer);

      const full = await client.v1.getConversation(conv.id, { includeMessages: true });
      expect(full.messages?.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      expect(full.messages?.[3].content).toBe(answer);

      const mine = await client.v1.userConversations(userId, { limit: 10 });
      expect(mine.items.map((c) => c.id)).toEqual([conv.id]);
      expect(mine.meta.total).toBe(1);
    });

    test('v1: analytics overview has numeric metrics', async () => {
      const a = await client.v1.analyticsOverview({ startDate: '2024-01-01T00:00:00Z', chatbotId: target.chatbotId });
      expect(typeof a.period.start).toBe('string');
      for (const v of Object.values(a.metrics)) expect(typeof v).toBe('number');
    });

    test('v1: a wrong API key is refused with a ServiceError', async () => {
      const bad = new ChatbotClient({
        baseUrl: target.baseUrl,
        v1BaseUrl: target.v1BaseUrl,
        apiKey: 'wrong',
        retries: 0,
      });
      await expect(bad.v1.listChatbots()).rejects.toBeInstanceOf(ServiceError);
    });
  });
}
