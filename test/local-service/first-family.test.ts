import { listingListDataWireSchema } from '../../src/service/schemas';
import { type Harness, harness, KEYS, listingBody } from './helpers';

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

const sessionHeaders = { 'chatrobot-sessionkey': KEYS.sessionKey };

describe('envelope and credentials', () => {
  it('answers the envelope with Version 1.0.0 on success', async () => {
    const r = await h.post('/chat/Chatbot/GetSession', { serialNumber: 'demo' });
    expect(r.body).toEqual({
      Data: { SessionID: expect.any(Number) },
      Version: '1.0.0',
      Success: true,
      Code: 200,
      Message: '',
    });
  });

  it('every GetSession returns a new SessionID', async () => {
    const a = await h.session();
    const b = await h.session();
    expect(a).not.toBe(b);
  });

  it.each([
    ['/chat/Chatbot/Edit', { serialNumber: 'demo', Name: 'x' }],
    ['/chat/Chat/ClientAsk', { sessionID: 1, content: 'hi' }],
    ['/chat/Chatbot/GetSession', { serialNumber: 'demo' }],
    ['/chat/User/GetPreUploadUrl', { fileName: 'a.png' }],
    ['/chat/Chatbot/ModelList', {}],
  ])('%s needs the raw secret key', async (path, body) => {
    const missing = await h.post(path, body, {});
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ Success: false, Code: 401 });
    const wrong = await h.post(path, body, { authorization: 'nope' });
    expect(wrong.status).toBe(403);
    expect(wrong.body.Success).toBe(false);
    const bearer = await h.post(path, body, { authorization: `Bearer ${KEYS.secretKey}` });
    expect(bearer.body.Success).toBe(false);
    const sessionKey = await h.post(path, body, sessionHeaders);
    expect(sessionKey.body.Success).toBe(false);
    expect(wrong.raw).not.toContain(KEYS.secretKey);
  });

  it('RealEstateList accepts only the session key', async () => {
    const body = { SerialNumber: 'demo' };
    expect((await h.post('/chat/Chatbot/RealEstateList', body, sessionHeaders)).body.Success).toBe(true);
    const secret = await h.post('/chat/Chatbot/RealEstateList', body);
    expect(secret.body).toMatchObject({ Success: false, Code: 401 });
    expect((await h.post('/chat/Chatbot/RealEstateList', body, { 'chatrobot-sessionkey': 'bad' })).status).toBe(403);
  });

  it('Create/Update/Delete accept either credential, and refuse none or wrong ones', async () => {
    const bySecret = await h.post('/chat/Chatbot/RealEstateCreate', listingBody({ MLSNumber: 'AUTH1' }));
    expect(bySecret.body.Success).toBe(true);
    const bySession = await h.post(
      '/chat/Chatbot/RealEstateCreate',
      listingBody({ MLSNumber: 'AUTH2' }),
      sessionHeaders,
    );
    expect(bySession.body.Success).toBe(true);
    expect((await h.post('/chat/Chatbot/RealEstateCreate', listingBody(), {})).body.Success).toBe(false);
    const upd = await h.post(
      '/chat/Chatbot/RealEstateUpdate',
      { ...listingBody({ MLSNumber: 'AUTH2', Bedrooms: 4 }), Key: 'AUTH2', KeyType: 'MLSNumber' },
      sessionHeaders,
    );
    expect(upd.body.Data).toBe(1);
    const del = await h.post(
      '/chat/Chatbot/RealEstateDelete',
      { SerialNumber: 'demo', Keys: ['AUTH1'], KeyType: 'MLSNumber' },
      { authorization: 'bad' },
    );
    expect(del.status).toBe(403);
    const del2 = await h.post(
      '/chat/Chatbot/RealEstateDelete',
      { SerialNumber: 'demo', Keys: ['AUTH1', 'NO-SUCH-MLS'], KeyType: 'MLSNumber' },
      sessionHeaders,
    );
    expect(del2.body.Data).toEqual({ SuccessCount: 1 });
  });
});

describe('bad input', () => {
  it.each([
    ['[]', 'must be a JSON object'],
    ['null', 'must be a JSON object'],
    ['42', 'must be a JSON object'],
    ['"text"', 'must be a JSON object'],
    ['{"serialNumber": ', 'not valid JSON'],
  ])('body %s is a clear JSON error', async (payload, words) => {
    const r = await h.post('/chat/Chatbot/GetSession', payload);
    expect(r.body.Success).toBe(false);
    expect(r.body.Code).not.toBe(200);
    expect(r.body.Message).toContain(words);
    expect(r.raw).not.toMatch(/at .*\.(ts|js):\d+/);
  });

  it('an oversized body is a 413 envelope', async () => {
    const r = await h.post('/chat/Chatbot/Edit', { serialNumber: 'demo', SystemMessage: 'x'.repeat(2 * 1024 * 1024) });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ Success: false, Code: 413 });
  });

  it('names a missing required field', async () => {
    const { SaleType: _omit, ...body } = listingBody();
    const r = await h.post('/chat/Chatbot/RealEstateCreate', body);
    expect(r.body).toMatchObject({ Success: false, Code: 400 });
    expect(r.body.Message).toContain('SaleType');
  });

  it('names a wrong type and an enumeration with its values', async () => {
    const r = await h.post('/chat/Chatbot/RealEstateCreate', listingBody({ Bedrooms: 'three', Status: 'Pending' }));
    expect(r.body.Message).toContain('Bedrooms');
    expect(r.body.Message).toMatch(/Status must be one of Active, PreOnMarket, Sold/);
  });

  it('refuses a colour that is not rgb(r,g,b)', async () => {
    const r = await h.post('/chat/Chatbot/Edit', { serialNumber: 'demo', ChatBubbleColor: '#ff0000' });
    expect(r.body.Success).toBe(false);
    expect(r.body.Message).toContain('ChatBubbleColor');
    expect(r.body.Message).toContain('rgb(');
  });

  it('names an unknown chatbot', async () => {
    for (const [path, body] of [
      ['/chat/Chatbot/GetSession', { serialNumber: 'ghost' }],
      ['/chat/Chatbot/Edit', { serialNumber: 'ghost', Name: 'x' }],
      ['/chat/Chatbot/RealEstateCreate', listingBody({ SerialNumber: 'ghost' })],
    ] as const) {
      const r = await h.post(path, body);
      expect(r.body).toMatchObject({ Success: false, Code: 404 });
      expect(r.body.Message).toContain("'ghost'");
    }
    const list = await h.post('/chat/Chatbot/RealEstateList', { SerialNumber: 'ghost' }, sessionHeaders);
    expect(list.body.Message).toContain('ghost');
  });

  it('an unknown path is an envelope 404', async () => {
    const r = await h.post('/chat/Chatbot/Nope', {});
    expect(r.status).toBe(404);
    expect(r.body.Success).toBe(false);
  });
});

describe('Edit and ModelList', () => {
  it('Edit changes only the fields sent and answers 1', async () => {
    const r = await h.post('/chat/Chatbot/Edit', {
      serialNumber: 'demo',
      WelcomeMessage: 'Howdy from the test!',
      ChatBubbleColor: 'rgb(1,2,3)',
      Model: '3',
    });
    expect(r.body).toMatchObject({ Success: true, Data: 1 });
    const s = h.svc.context.chatbots.get('demo')?.settings;
    expect(s?.WelcomeMessage).toBe('Howdy from the test!');
    expect(s?.ChatBubbleColor).toBe('rgb(1,2,3)');
    expect(s?.Name).toBe('Skyline Realty Assistant');
    const sid = await h.session();
    const ask = await h.post<{ content: string }>('/chat/Chat/ClientAsk', { sessionID: sid, content: 'hello' });
    expect(ask.body.Data.content).toBe('Howdy from the test!');
  });

  it('Edit refuses a Model that ModelList does not offer', async () => {
    const r = await h.post('/chat/Chatbot/Edit', { serialNumber: 'demo', Model: '99' });
    expect(r.body.Success).toBe(false);
    expect(r.body.Message).toMatch(/Model must be the Key of a model from ModelList: 1 \(gpt-4o-mini\)/);
  });

  it('ModelList answers GET (with an empty JSON body) and POST', async () => {
    const get = await h.request('GET', '/chat/Chatbot/ModelList', undefined, { authorization: KEYS.secretKey });
    const body = get.body as { Success: boolean; Data: unknown[] };
    expect(body.Success).toBe(true);
    expect(body.Data[0]).toEqual({ Key: expect.any(String), Value: expect.any(String), Status: expect.any(Boolean) });
    const post = await h.post<unknown[]>('/chat/Chatbot/ModelList', {});
    expect(post.body.Data).toEqual(body.Data);
  });
});

describe('listings', () => {
  it('demo data: >= 20 listings, >= 3 cities, both sale types, all statuses, images and extension columns', async () => {
    const r = await h.post<unknown>(
      '/chat/Chatbot/RealEstateList',
      { SerialNumber: 'demo', PageSize: 100 },
      sessionHeaders,
    );
    const data = listingListDataWireSchema.parse(r.body.Data);
    expect(data.VirtualCount).toBeGreaterThanOrEqual(20);
    const demo = data.List.filter((l) => l.MLSNumber.match(/^(ATX|DEN|SEA|MIA)/));
    expect(new Set(demo.map((l) => l.City)).size).toBeGreaterThanOrEqual(3);
    expect(new Set(demo.map((l) => l.SaleType))).toEqual(new Set(['for_sale', 'for_rent']));
    expect(new Set(demo.map((l) => l.Status))).toEqual(new Set(['Active', 'PreOnMarket', 'Sold']));
    expect(demo.every((l) => JSON.parse(l.Images).length > 0 && JSON.parse(l.ExtensionColumn).length > 0)).toBe(true);
  });

  it('create -> list returns the item of section 2.4 exactly, Data is the new ID as a string', async () => {
    const c = await h.post<string>(
      '/chat/Chatbot/RealEstateCreate',
      listingBody({
        MLSNumber: 'SHAPE1',
        City: 'Shapeville',
        SaleType: 'for_rent',
        RentPrice: 2400,
        SalePrice: undefined,
        DepositFee: 2400,
        Tours: '3D',
      }),
    );
    expect(c.body.Success).toBe(true);
    expect(typeof c.body.Data).toBe('string');
    const r = await h.post<{ List: Record<string, unknown>[]; VirtualCount: number }>(
      '/chat/Chatbot/RealEstateList',
      { SerialNumber: 'demo', CityName: 'Shapeville' },
      sessionHeaders,
    );
    expect(r.body.Data.VirtualCount).toBe(1);
    const item = r.body.Data.List[0];
    expect(listingListDataWireSchema.parse(r.body.Data).List).toHaveLength(1);
    expect(item.ID).toBe(Number(c.body.Data));
    expect(item).toMatchObject({
      SaleType: 'for_rent',
      Bedrooms: '3',
      Bathrooms: '2.5',
      YearBuilt: '2001',
      LATITUDE: 43.61,
      LONGITUDE: -116.2,
      RentPrice: '2400.00',
      Price: '2400.00',
      SalePrice: '',
      HOAMonth: '',
      SpaceType: '',
      Tours: '3D',
      ExtensionColumn: JSON.stringify([{ Key: 'Pool', value: 'Yes' }]),
      Images: JSON.stringify(['https://images.example.com/t/1.jpg']),
    });
    expect(typeof item.LATITUDE).toBe('number');
  });

  it('update by ListingId, MLSNumber and URL; unknown key is never 1', async () => {
    const id = (
      await h.post<string>(
        '/chat/Chatbot/RealEstateCreate',
        listingBody({ MLSNumber: 'UPD1', Url: 'https://homes.example.com/upd1' }),
      )
    ).body.Data;
    const base = listingBody({ MLSNumber: 'UPD1', Url: 'https://homes.example.com/upd1' });
    expect(
      (await h.post('/chat/Chatbot/RealEstateUpdate', { ...base, Bedrooms: 5, Key: id, KeyType: 'ListingId' })).body
        .Data,
    ).toBe(1);
    expect(
      (
        await h.post('/chat/Chatbot/RealEstateUpdate', {
          ...base,
          Bedrooms: 5,
          Status: 'Sold',
          Key: 'UPD1',
          KeyType: 'MLSNumber',
        })
      ).body.Data,
    ).toBe(1);
    expect(
      (
        await h.post('/chat/Chatbot/RealEstateUpdate', {
          ...base,
          Bedrooms: 5,
          Status: 'Sold',
          SalePrice: 1,
          Key: 'https://homes.example.com/upd1',
          KeyType: 'URL',
        })
      ).body.Data,
    ).toBe(1);
    const list = await h.post<{ List: Record<string, unknown>[] }>(
      '/chat/Chatbot/RealEstateList',
      { SerialNumber: 'demo', MLSNumber: 'UPD1' },
      sessionHeaders,
    );
    expect(list.body.Data.List[0]).toMatchObject({ ID: Number(id), Bedrooms: '5', Status: 'Sold', SalePrice: '1.00' });
    const unknown = await h.post('/chat/Chatbot/RealEstateUpdate', { ...base, Key: '999999', KeyType: 'ListingId' });
    expect(unknown.body.Data).not.toBe(1);
    expect(unknown.body.Success).toBe(false);
    expect(unknown.body.Message).toContain('999999');
    const badType = await h.post('/chat/Chatbot/RealEstateUpdate', { ...base, Key: id, KeyType: 'Id' });
    expect(badType.body.Message).toContain('KeyType must be one of ListingId, MLSNumber, URL');
  });

  it('delete counts only what it deleted', async () => {
    const a = (await h.post<string>('/chat/Chatbot/RealEstateCreate', listingBody({ MLSNumber: 'DEL1' }))).body.Data;
    const r = await h.post('/chat/Chatbot/RealEstateDelete', {
      SerialNumber: 'demo',
      Keys: [a, a, '424242'],
      KeyType: 'ListingId',
    });
    expect(r.body.Data).toEqual({ SuccessCount: 1 });
    const again = await h.post('/chat/Chatbot/RealEstateDelete', {
      SerialNumber: 'demo',
      Keys: [a],
      KeyType: 'ListingId',
    });
    expect(again.body.Data).toEqual({ SuccessCount: 0 });
  });

  it('filters by city (any case) and sale type; VirtualCount is the total; pages are stable', async () => {
    const all = await h.post<{ List: { ID: number; City: string; SaleType: string }[]; VirtualCount: number }>(
      '/chat/Chatbot/RealEstateList',
      { SerialNumber: 'demo', CityName: 'austin', SaleType: 'for_sale', PageSize: 100 },
      sessionHeaders,
    );
    expect(all.body.Data.VirtualCount).toBe(all.body.Data.List.length);
    expect(all.body.Data.List.every((l) => l.City === 'Austin' && l.SaleType === 'for_sale')).toBe(true);
    const pages: number[] = [];
    for (let p = 1; p <= 3; p++) {
      const r = await h.post<{ List: { ID: number }[]; VirtualCount: number }>(
        '/chat/Chatbot/RealEstateList',
        { SerialNumber: 'demo', PageSize: 3, PageNumber: p },
        sessionHeaders,
      );
      expect(r.body.Data.List.length).toBeLessThanOrEqual(3);
      pages.push(...r.body.Data.List.map((l) => l.ID));
    }
    expect(new Set(pages).size).toBe(9);
    expect([...pages].sort((x, y) => x - y)).toEqual(pages);
    const beyond = await h.post<{ List: unknown[]; VirtualCount: number }>(
      '/chat/Chatbot/RealEstateList',
      { SerialNumber: 'demo', PageNumber: 999 },
      sessionHeaders,
    );
    expect(beyond.body.Data.List).toEqual([]);
    expect(beyond.body.Data.VirtualCount).toBeGreaterThan(0);
  });

  it('a write is seen by the next list of the same filter and page', async () => {
    const list = () =>
      h.post<{ List: { MLSNumber: string }[]; VirtualCount: number }>(
        '/chat/Chatbot/RealEstateList',
        { SerialNumber: 'demo', CityName: 'Miami', SaleType: 'for_sale', PageSize: 50 },
        sessionHeaders,
      );
    const before = (await list()).body.Data;
    const id = (
      await h.post<string>('/chat/Chatbot/RealEstateCreate', listingBody({ City: 'Miami', MLSNumber: 'CACHE1' }))
    ).body.Data;
    const after = (await list()).body.Data;
    expect(after.VirtualCount).toBe(before.VirtualCount + 1);
    expect(after.List.map((l) => l.MLSNumber)).toContain('CACHE1');
    await h.post('/chat/Chatbot/RealEstateDelete', { SerialNumber: 'demo', Keys: [id], KeyType: 'ListingId' });
    expect((await list()).body.Data).toEqual(before);
  });

  it('refuses a bad page and an unknown filter value', async () => {
    expect(
      (await h.post('/chat/Chatbot/RealEstateList', { SerialNumber: 'demo', PageNumber: 0 }, sessionHeaders)).body
        .Message,
    ).toContain('PageNumber');
    expect(
      (await h.post('/chat/Chatbot/RealEstateList', { SerialNumber: 'demo', SaleType: 'buy' }, sessionHeaders)).body
        .Message,
    ).toContain('SaleType must be one of for_sale, for_rent');
  });
});
