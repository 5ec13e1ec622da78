import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLocalService } from '../../src/local-service';

describe('restart on the same SERVICE_DB', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'local-service-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps chatbots, listings, sessions, messages and generated keys; old sessionIDs still work', async () => {
    const dbPath = path.join(dir, 'nested', 'service.db');
    const first = await startLocalService({ dbPath });
    const keys = first.credentials;
    // biome-ignore lint/suspicious/noExplicitAny: the test reads several envelope shapes field by field
    type Envelope = { Data: any; Success: boolean };
    const post = async (base: string, p: string, body: unknown, headers: Record<string, string>): Promise<Envelope> => {
      const res = await fetch(base + p, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      return (await res.json()) as Envelope;
    };
    const secret = { authorization: keys.secretKey };
    const sid = (await post(first.url, '/chat/Chatbot/GetSession', { serialNumber: 'demo' }, secret)).Data
      .SessionID as number;
    await post(first.url, '/chat/Chat/ClientAsk', { sessionID: sid, content: 'homes in Austin' }, secret);
    const created = await post(
      first.url,
      '/chat/Chatbot/RealEstateCreate',
      {
        SerialNumber: 'demo',
        SaleType: 'for_sale',
        Status: 'Active',
        CurrencySymbol: '$',
        PropertyType: 'House',
        Bedrooms: 2,
        Bathrooms: 1,
        Url: 'https://homes.example.com/persist',
        MLSNumber: 'PERSIST1',
        YearBuilt: 1990,
        DaysOnMarket: 3,
        LotArea: 1,
        BuildingArea: 1,
        AreaUnit: 'Square Feet',
        ParkingSpots: 0,
        City: 'Tulsa',
      },
      secret,
    );
    const bot = (await (
      await fetch(`${first.url}/v1/chatbots`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Persisted bot' }),
      })
    ).json()) as { data: { id: string; api_key: string } };
    await first.close();

    const second = await startLocalService({ dbPath });
    try {
      expect(second.credentials).toEqual(keys);
      const list = await post(
        second.url,
        '/chat/Chatbot/RealEstateList',
        { SerialNumber: 'demo', MLSNumber: 'PERSIST1' },
        { 'chatrobot-sessionkey': keys.sessionKey },
      );
      expect(list.Data.List[0].ID).toBe(Number(created.Data));
      const again = await post(second.url, '/chat/Chat/ClientAsk', { sessionID: sid, content: 'hello' }, secret);
      expect(again.Success).toBe(true);
      const conv = (await (
        await fetch(`${second.url}/v1/conversations/${sid}`, { headers: { authorization: `Bearer ${keys.apiKey}` } })
      ).json()) as { data: { messages: unknown[] } };
      expect(conv.data.messages).toHaveLength(4);
      const scoped = (await (
        await fetch(`${second.url}/v1/chatbots`, { headers: { authorization: `Bearer ${bot.data.api_key}` } })
      ).json()) as { data: { id: string; name: string }[] };
      expect(scoped.data).toEqual([expect.objectContaining({ id: bot.data.id, name: 'Persisted bot' })]);
      const all = await post(
        second.url,
        '/chat/Chatbot/RealEstateList',
        { SerialNumber: 'demo' },
        { 'chatrobot-sessionkey': keys.sessionKey },
      );
      expect(all.Data.VirtualCount).toBe(25);
    } finally {
      await second.close();
    }
  });
});
