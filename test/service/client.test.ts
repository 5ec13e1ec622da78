/** Scripted-fake tests of the client: headers, paths, error kinds, retries, validation, decoding. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChatbotClient } from '../../src/service/client';
import {
  NetworkError,
  QuotaExceededError,
  RateLimitedError,
  RequestValidationError,
  ServiceError,
  TimeoutError,
} from '../../src/service/errors';
import {
  drop,
  FakeChatbotServer,
  fail,
  hang,
  json,
  ok,
  status,
  type Handler,
  useScriptedClient,
} from '../support/fake-chatbot-server';
import { sampleListing } from './contract';

const KEYS = { secretKey: 'sk-123', sessionKey: 'ss-456', apiKey: 'ak-789' };

const scripted = useScriptedClient({ ...KEYS, timeoutMs: 2000, retries: { count: 3, baseDelayMs: 5 } });

const wireItem = {
  ID: 7,
  PropertyType: 'House',
  SaleType: 'For Sale',
  Status: 'Active',
  Images: '["https://i.example.com/1.jpg","https://i.example.com/2.jpg"]',
  CurrencySymbol: '$',
  Price: '1,250,000',
  State: 'WA',
  City: 'Seattle',
  Address: '9 Pine St',
  ZIP: '98101',
  Area: '2100 Square Feet',
  Url: 'https://homes.example.com/7',
  Tours: '',
  MLSNumber: 'NW-7',
  Description: '',
  SpaceType: '',
  LATITUDE: 47.61,
  LONGITUDE: -122.33,
  Bathrooms: '2.5',
  Bedrooms: '4',
  YearBuilt: '1925',
  DaysOnMarket: '3',
  LotArea: '5000',
  BuildingArea: '2100',
  ParkingSpots: '2',
  ExtensionColumn: '[{"Key":"Pool","value":"yes"},{"key":"HOA","Value":"none"}]',
  RentPrice: '',
  DepositFee: '',
  SalePrice: '1250000.00',
  UnitAreaPrice: '595.24',
  EstimatePrice: '',
  HOAMonth: '',
};

describe('operations send the right request and decode the answer', () => {
  test('getSession: POST {serialNumber} with raw Authorization, returns SessionID', async () => {
    scripted.server.on('POST', '/chat/Chatbot/GetSession', ok({ SessionID: 4242 }));
    await expect(scripted.client.getSession('demo')).resolves.toBe(4242);
    const [req] = scripted.server.requests;
    expect(req.json).toEqual({ serialNumber: 'demo' });
    expect(req.headers.authorization).toBe('sk-123');
    expect(req.headers['chatrobot-sessionkey']).toBeUndefined();
  });

  test('ask: ClientAsk body in wire casing, stream false, answer decoded', async () => {
    scripted.server.on(
      'POST',
      '/chat/Chat/ClientAsk',
      ok({ messageid: 9, content: 'Hi there', totalToken: 12, noAnswer: true }),
    );
    const answer = await scripted.client.ask({
      sessionId: 5,
      content: 'hello',
      chatAskType: 'Image',
      fileIds: ['34317', 2],
    });
    expect(answer).toEqual({ messageId: 9, content: 'Hi there', totalTokens: 12, noAnswer: true });
    expect(scripted.server.requests[0].json).toEqual({
      sessionID: 5,
      content: 'hello',
      chatAskType: 'Image',
      stream: false,
      fileIds: [34317, 2],
    });
    expect(scripted.server.requests[0].headers.authorization).toBe('sk-123');
  });

  test('editChatbot: serialNumber plus only the changed fields', async () => {
    scripted.server.on('POST', '/chat/Chatbot/Edit', ok(1));
    await scripted.client.editChatbot({
      serialNumber: 'demo',
      Temperature: 1,
      ChatBubbleColor: 'rgb(37,99,235)',
      VerifyDomain: false,
    });
    expect(scripted.server.requests[0].json).toEqual({
      serialNumber: 'demo',
      Temperature: 1,
      ChatBubbleColor: 'rgb(37,99,235)',
      VerifyDomain: false,
    });
    expect(scripted.server.requests[0].headers.authorization).toBe('sk-123');
  });

  test('editChatbot: Data 0 (not applied) is an error', async () => {
    scripted.server.on('POST', '/chat/Chatbot/Edit', ok(0));
    await expect(scripted.client.editChatbot({ serialNumber: 'demo', Name: 'x' })).rejects.toBeInstanceOf(ServiceError);
  });

  test('listModels: GET with {} body, models decoded', async () => {
    scripted.server.on(
      'GET',
      '/chat/Chatbot/ModelList',
      ok([
        { Key: '2', Value: 'gpt-4o', Status: true },
        { Key: 3, Value: 'old', Status: false },
      ]),
    );
    await expect(scripted.client.listModels()).resolves.toEqual([
      { key: '2', name: 'gpt-4o', enabled: true },
      { key: '3', name: 'old', enabled: false },
    ]);
    expect(scripted.server.requests[0].method).toBe('GET');
    expect(scripted.server.requests[0].json).toEqual({});
    expect(scripted.server.requests[0].headers.authorization).toBe('sk-123');
  });

  test('listListings: only the session key; query mapped; items decoded', async () => {
    scripted.server.on('POST', '/chat/Chatbot/RealEstateList', ok({ List: [wireItem], VirtualCount: 31 }));
    const page = await scripted.client.listListings({
      chatbotId: 'demo',
      city: 'Seattle',
      saleType: 'for_sale',
      mls: 'NW-7',
      page: 2,
      pageSize: 5,
    });
    const req = scripted.server.requests[0];
    expect(req.json).toEqual({
      SerialNumber: 'demo',
      CityName: 'Seattle',
      SaleType: 'for_sale',
      MLSNumber: 'NW-7',
      PageNumber: 2,
      PageSize: 5,
    });
    expect(req.headers['chatrobot-sessionkey']).toBe('ss-456');
    expect(req.headers.authorization).toBeUndefined();
    expect(page.total).toBe(31);
    expect(page.page).toBe(2);
    expect(page.pageSize).toBe(5);
    expect(page.items[0]).toEqual({
      id: 7,
      propertyType: 'House',
      saleType: 'For Sale',
      status: 'Active',
      images: ['https://i.example.com/1.jpg', 'https://i.example.com/2.jpg'],
      currencySymbol: '$',
      price: 1250000,
      priceText: '1,250,000',
      state: 'WA',
      city: 'Seattle',
      address: '9 Pine St',
      zip: '98101',
      area: '2100 Square Feet',
      url: 'https://homes.example.com/7',
      mlsNumber: 'NW-7',
      latitude: 47.61,
      longitude: -122.33,
      bathrooms: 2.5,
      bedrooms: 4,
      yearBuilt: 1925,
      daysOnMarket: 3,
      lotArea: 5000,
      buildingArea: 2100,
      parkingSpots: 2,
      extensionColumns: [
        { key: 'Pool', value: 'yes' },
        { key: 'HOA', value: 'none' },
      ],
      salePrice: 1250000,
      unitAreaPrice: 595.24,
    });
  });

  test('listListings: comma-separated Images and defaults of page/pageSize', async () => {
    scripted.server.on(
      'POST',
      '/chat/Chatbot/RealEstateList',
      ok({ List: [{ ...wireItem, Images: 'https://a/1.jpg, https://a/2.jpg', ExtensionColumn: '' }], VirtualCount: 1 }),
    );
    const page = await scripted.client.listListings({ chatbotId: 'demo' });
    expect(page.items[0].images).toEqual(['https://a/1.jpg', 'https://a/2.jpg']);
    expect(page.items[0].extensionColumns).toEqual([]);
    expect(page).toMatchObject({ page: 1, pageSize: 20 });
    expect(scripted.server.requests[0].json).toEqual({ SerialNumber: 'demo' });
  });

  test('createListing/updateListing/deleteListings send both credentials', async () => {
    scripted.server.on('POST', '/chat/Chatbot/RealEstateCreate', ok('L-77'));
    scripted.server.on('POST', '/chat/Chatbot/RealEstateUpdate', ok(1));
    scripted.server.on('POST', '/chat/Chatbot/RealEstateDelete', ok({ SuccessCount: 2 }));
    const input = sampleListing('demo');
    await expect(scripted.client.createListing(input)).resolves.toBe('L-77');
    await expect(scripted.client.updateListing({ ...input, Key: 'L-77', KeyType: 'ListingId' })).resolves.toBe(1);
    await expect(scripted.client.deleteListings('demo', ['a', 'b'], 'URL')).resolves.toBe(2);
    for (const req of scripted.server.requests) {
      expect(req.headers.authorization).toBe('sk-123');
      expect(req.headers['chatrobot-sessionkey']).toBe('ss-456');
    }
    expect(scripted.server.requests[0].json).toEqual(input);
    expect(scripted.server.requests[1].json).toEqual({ ...input, Key: 'L-77', KeyType: 'ListingId' });
    expect(scripted.server.requests[2].json).toEqual({ SerialNumber: 'demo', Keys: ['a', 'b'], KeyType: 'URL' });
  });

  test('a client without a session key sends only Authorization on create', async () => {
    scripted.server.on('POST', '/chat/Chatbot/RealEstateCreate', ok('1'));
    const c = new ChatbotClient({ baseUrl: scripted.server.baseUrl, secretKey: 'sk-only' });
    await c.createListing(sampleListing('demo'));
    expect(scripted.server.requests[0].headers.authorization).toBe('sk-only');
    expect(scripted.server.requests[0].headers['chatrobot-sessionkey']).toBeUndefined();
  });

  test('upload: GetPreUploadUrl then PUT of the bytes without credentials', async () => {
    scripted.server.on(
      'POST',
      '/chat/User/GetPreUploadUrl',
      ok({ FileStoreId: '34317', PreUploadUrl: `${scripted.server.baseUrl}/bucket/obj?X-Sig=1` }),
    );
    scripted.server.on('PUT', '/bucket/obj', (_req, res) => void res.writeHead(200).end());
    const bytes = Buffer.from([0xff, 0xd8, 0xff, 0x00, 0x10]);
    await expect(scripted.client.upload('house.jpg', bytes)).resolves.toBe(34317);
    const [pre, put] = scripted.server.requests;
    expect(pre.json).toEqual({ fileName: 'house.jpg' });
    expect(pre.headers.authorization).toBe('sk-123');
    expect(put.method).toBe('PUT');
    expect(put.query.get('X-Sig')).toBe('1');
    expect(put.body.equals(bytes)).toBe(true);
    expect(put.headers.authorization).toBeUndefined();
    expect(put.headers['chatrobot-sessionkey']).toBeUndefined();
    expect(put.headers['content-type']).toBe('image/jpeg');
  });

  test('upload: an image over 20 MB is refused before any request', async () => {
    await expect(scripted.client.upload('big.png', Buffer.alloc(20 * 1024 * 1024 + 1))).rejects.toBeInstanceOf(
      RequestValidationError,
    );
    expect(scripted.server.requests).toHaveLength(0);
  });

  test('paths can be overridden', async () => {
    const c = new ChatbotClient({
      baseUrl: scripted.server.baseUrl,
      secretKey: 'k',
      paths: { getSession: '/api/v2/session' },
    });
    scripted.server.on('POST', '/api/v2/session', ok({ SessionID: 1 }));
    await expect(c.getSession('demo')).resolves.toBe(1);
    expect(scripted.server.requests[0].path).toBe('/api/v2/session');
  });
});

describe('v1 family', () => {
  const bot = {
    id: 'cb_1',
    name: 'Bot',
    status: 'active',
    created_at: '2024-01-01T00:00:00Z',
    updated_at: '2024-01-02T00:00:00Z',
    settings: { language: 'en' },
  };
  const conv = {
    id: 'c1',
    chatbot_id: 'cb_1',
    status: 'active',
    created_at: '2024-01-01T00:00:00Z',
    session_token: 'st',
  };

  test('listChatbots: GET with query and Bearer key; camelCase items and meta', async () => {
    scripted.server.on(
      'GET',
      '/v1/chatbots',
      json({ success: true, data: [bot], meta: { page: 2, limit: 5, total: 6, pages: 2 } }),
    );
    const r = await scripted.client.v1.listChatbots({ page: 2, limit: 5, status: 'active' });
    expect(r.items[0]).toMatchObject({
      id: 'cb_1',
      createdAt: '2024-01-01T00:00:00Z',
      updatedAt: '2024-01-02T00:00:00Z',
      settings: { language: 'en' },
    });
    expect(r.meta).toEqual({ page: 2, limit: 5, total: 6, pages: 2 });
    const req = scripted.server.requests[0];
    expect(req.headers.authorization).toBe('Bearer ak-789');
    expect(Object.fromEntries(req.query)).toEqual({ page: '2', limit: '5', status: 'active' });
  });

  test('createChatbot POST, updateChatbot PATCH', async () => {
    scripted.server.on(
      'POST',
      '/v1/chatbots',
      json({ success: true, data: { ...bot, status: 'draft', api_key: 'k1' } }, 201),
    );
    scripted.server.on('PATCH', '/v1/chatbots/cb_1', json({ success: true, data: { ...bot, name: 'New' } }));
    await expect(scripted.client.v1.createChatbot({ name: 'Bot', settings: { tone: 'warm' } })).resolves.toMatchObject({
      apiKey: 'k1',
      status: 'draft',
    });
    await expect(scripted.client.v1.updateChatbot('cb_1', { name: 'New' })).resolves.toMatchObject({ name: 'New' });
    expect(scripted.server.requests.map((r) => [r.method, r.json])).toEqual([
      ['POST', { name: 'Bot', settings: { tone: 'warm' } }],
      ['PATCH', { name: 'New' }],
    ]);
  });

  test('conversations, messages, analytics, user lists', async () => {
    scripted.server.on('POST', '/v1/conversations', json({ success: true, data: conv }));
    scripted.server.on(
      'GET',
      '/v1/conversations/c1',
      json({ success: true, data: { ...conv, messages: [{ id: 'm1', role: 'user', content: 'q', timestamp: 't' }] } }),
    );
    scripted.server.on(
      'POST',
      '/v1/conversations/c1/messages',
      json({
        success: true,
        data: { message_id: 'm2', conversation_id: 'c1', response: { id: 'm3', content: 'a', timestamp: 't' } },
      }),
    );
    scripted.server.on(
      'GET',
      '/v1/analytics/overview',
      json({
        success: true,
        data: {
          period: { start: 's', end: 'e' },
          metrics: {
            total_conversations: 1,
            total_messages: 2,
            unique_users: 1,
            avg_conversation_length: 2,
            resolution_rate: 0.5,
            avg_response_time: 1.2,
          },
        },
      }),
    );
    scripted.server.on(
      'GET',
      '/v1/users/u%201/conversations',
      json({ success: true, data: [{ ...conv, message_count: 4 }], meta: { total: 1, limit: 3 } }),
    );

    await expect(
      scripted.client.v1.startConversation({ chatbotId: 'cb_1', userId: 'u1', metadata: { a: 1 } }),
    ).resolves.toMatchObject({ chatbotId: 'cb_1', sessionToken: 'st' });
    await expect(scripted.client.v1.getConversation('c1', { includeMessages: true })).resolves.toMatchObject({
      messages: [{ id: 'm1', role: 'user' }],
    });
    await expect(scripted.client.v1.sendMessage('c1', 'hi')).resolves.toEqual({
      messageId: 'm2',
      conversationId: 'c1',
      response: { id: 'm3', content: 'a', timestamp: 't' },
    });
    await expect(
      scripted.client.v1.analyticsOverview({ startDate: '2024-01-01', endDate: '2024-02-01', chatbotId: 'cb_1' }),
    ).resolves.toMatchObject({
      metrics: { totalConversations: 1, resolutionRate: 0.5, avgResponseTime: 1.2 },
    });
    await expect(scripted.client.v1.userConversations('u 1', { limit: 3, status: 'active' })).resolves.toMatchObject({
      items: [{ messageCount: 4 }],
      meta: { total: 1, limit: 3 },
    });

    const [start, get, send, analytics, users] = scripted.server.requests;
    expect(start.json).toEqual({ chatbot_id: 'cb_1', user_id: 'u1', metadata: { a: 1 } });
    expect(get.query.get('include_messages')).toBe('true');
    expect([send.method, send.json]).toEqual(['POST', { content: 'hi' }]);
    expect(Object.fromEntries(analytics.query)).toEqual({
      start_date: '2024-01-01',
      end_date: '2024-02-01',
      chatbot_id: 'cb_1',
    });
    expect(Object.fromEntries(users.query)).toEqual({ limit: '3', status: 'active' });
    for (const r of scripted.server.requests) expect(r.headers.authorization).toBe('Bearer ak-789');
  });

  test('v1 base URL is separate when configured', async () => {
    const other = await FakeChatbotServer.start();
    try {
      other.on(
        'GET',
        '/v1/chatbots',
        json({ success: true, data: [], meta: { page: 1, limit: 20, total: 0, pages: 0 } }),
      );
      const c = new ChatbotClient({ baseUrl: scripted.server.baseUrl, v1BaseUrl: `${other.baseUrl}/`, apiKey: 'x' });
      await c.v1.listChatbots();
      expect(other.requests).toHaveLength(1);
      expect(scripted.server.requests).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  test('v1 errors are typed: rate_limited, quota_exceeded, others', async () => {
    scripted.server.on(
      'POST',
      '/v1/conversations/c1/messages',
      json({ success: false, error: { code: 'rate_limited', message: 'Slow down please.' } }, 429),
    );
    scripted.server.on(
      'GET',
      '/v1/chatbots',
      json({ success: false, error: { code: 'not_found', message: 'nope' } }, 404),
    );
    scripted.server.on(
      'POST',
      '/v1/conversations',
      json({ success: false, error: { code: 'quota_exceeded', message: 'Monthly cap reached' } }, 402),
    );
    const e1 = await scripted.client.v1.sendMessage('c1', 'x').catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(RateLimitedError);
    expect((e1 as Error).message).toBe('Slow down please.');
    const e2 = await scripted.client.v1.listChatbots().catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(ServiceError);
    expect(e2).not.toBeInstanceOf(RateLimitedError);
    expect(e2).toMatchObject({ code: 'not_found', httpStatus: 404, message: 'nope' });
    await expect(scripted.client.v1.startConversation({ chatbotId: 'x' })).rejects.toBeInstanceOf(QuotaExceededError);
  });
});

describe('error kinds', () => {
  test('ServiceError carries operation, Code and Message (HTTP 200 envelope)', async () => {
    scripted.server.on('POST', '/chat/Chatbot/Edit', fail(500, 'Internal failure while saving'));
    const err = await scripted.client.editChatbot({ serialNumber: 'demo', Name: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ operation: 'editChatbot', code: 500, message: 'Internal failure while saving' });
    expect(err).not.toBeInstanceOf(RateLimitedError);
  });

  test('RateLimitedError keeps the service message word for word', async () => {
    const message = "You're sending messages too fast — try again in a minute.";
    scripted.server.on('POST', '/chat/Chat/ClientAsk', fail(429, message));
    const err = await scripted.client.ask({ sessionId: 1, content: 'hi' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).message).toBe(message);
    expect((err as RateLimitedError).code).toBe(429);
  });

  test('QuotaExceededError for the monthly MessageLimit (Code 402)', async () => {
    scripted.server.on('POST', '/chat/Chat/ClientAsk', fail(402, 'This chatbot has used its messages for the month.'));
    await expect(scripted.client.ask({ sessionId: 1, content: 'hi' })).rejects.toBeInstanceOf(QuotaExceededError);
  });

  test('an envelope on an HTTP error status still gives its Code and Message', async () => {
    scripted.server.on('POST', '/chat/Chatbot/GetSession', fail(401, 'wrong secret key', 401));
    const err = await scripted.client.getSession('demo').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 401, httpStatus: 401, message: 'wrong secret key' });
  });

  test('an answer that is not an envelope is a ServiceError', async () => {
    scripted.server.on('POST', '/chat/Chatbot/GetSession', json({ hello: 'world' }));
    await expect(scripted.client.getSession('demo')).rejects.toMatchObject({ code: 'bad_response' });
  });

  test('NetworkError when the connection is refused', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((r) => closed.close(() => r()));
    const c = new ChatbotClient({
      baseUrl: `http://127.0.0.1:${port}`,
      secretKey: 'k',
      retries: { count: 1, baseDelayMs: 1 },
    });
    const err = await c.getSession('demo').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).causeCode).toBe('ECONNREFUSED');
  });

  test('TimeoutError when the service does not answer in time', async () => {
    scripted.server.on('POST', '/chat/Chat/ClientAsk', hang);
    const c = new ChatbotClient({ baseUrl: scripted.server.baseUrl, secretKey: 'k', timeoutMs: 300 });
    const err = await c.ask({ sessionId: 1, content: 'hi' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as TimeoutError).timeoutMs).toBe(300);
    expect(scripted.server.requestsTo('/chat/Chat/ClientAsk')).toHaveLength(1);
  });
});

describe('retries', () => {
  test('ClientAsk answered 503 is not retried (exactly one request)', async () => {
    scripted.server.on(
      'POST',
      '/chat/Chat/ClientAsk',
      status(503),
      ok({ messageid: 1, content: 'late', totalToken: 1, noAnswer: false }),
    );
    const err = await scripted.client.ask({ sessionId: 1, content: 'hi' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).httpStatus).toBe(503);
    expect(scripted.server.requestsTo('/chat/Chat/ClientAsk')).toHaveLength(1);
  });

  test('ClientAsk whose connection drops after the body was read is not retried', async () => {
    scripted.server.on(
      'POST',
      '/chat/Chat/ClientAsk',
      drop,
      ok({ messageid: 1, content: 'late', totalToken: 1, noAnswer: false }),
    );
    await expect(scripted.client.ask({ sessionId: 1, content: 'hi' })).rejects.toBeInstanceOf(NetworkError);
    expect(scripted.server.requestsTo('/chat/Chat/ClientAsk')).toHaveLength(1);
  });

  test('streamed ClientAsk answered 503 is not retried', async () => {
    scripted.server.on('POST', '/chat/Chat/ClientAsk', status(503));
    const run = async () => {
      for await (const _ of scripted.client.askStream({ sessionId: 1, content: 'hi' })) void _;
    };
    await expect(run()).rejects.toBeInstanceOf(ServiceError);
    expect(scripted.server.requestsTo('/chat/Chat/ClientAsk')).toHaveLength(1);
  });

  test('creates, updates and deletes answered 502 are not retried', async () => {
    scripted.server.on('POST', '/chat/Chatbot/RealEstateCreate', status(502));
    scripted.server.on('POST', '/chat/Chatbot/RealEstateDelete', status(504));
    scripted.server.on('POST', '/v1/conversations/c1/messages', status(503));
    await expect(scripted.client.createListing(sampleListing('demo'))).rejects.toBeInstanceOf(ServiceError);
    await expect(scripted.client.deleteListings('demo', ['1'], 'ListingId')).rejects.toBeInstanceOf(ServiceError);
    await expect(scripted.client.v1.sendMessage('c1', 'hi')).rejects.toBeInstanceOf(ServiceError);
    expect(scripted.server.requests).toHaveLength(3);
  });

  test('a read answered 503 is retried and succeeds', async () => {
    scripted.server.on(
      'GET',
      '/chat/Chatbot/ModelList',
      status(503),
      status(502),
      ok([{ Key: '1', Value: 'm', Status: true }]),
    );
    await expect(scripted.client.listModels()).resolves.toHaveLength(1);
    expect(scripted.server.requestsTo('/chat/Chatbot/ModelList')).toHaveLength(3);
  });

  test('Retry-After over 60 s is not waited on: one request, and the error says so', async () => {
    const wait3600: Handler = (_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '3600' });
      res.end(JSON.stringify({ error: 'unavailable' }));
    };
    scripted.server.on('GET', '/chat/Chatbot/ModelList', wait3600, ok([{ Key: '1', Value: 'm', Status: true }]));
    const err = await scripted.client.listModels().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as Error).message).toMatch(/asked to wait 3600 s.*try again later/);
    expect(scripted.server.requestsTo('/chat/Chatbot/ModelList')).toHaveLength(1);
  });

  test('Retry-After within 60 s is obeyed (the retry succeeds)', async () => {
    const wait1: Handler = (_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(JSON.stringify({ error: 'unavailable' }));
    };
    scripted.server.on('GET', '/chat/Chatbot/ModelList', wait1, ok([{ Key: '1', Value: 'm', Status: true }]));
    await expect(scripted.client.listModels()).resolves.toHaveLength(1);
    expect(scripted.server.requestsTo('/chat/Chatbot/ModelList')).toHaveLength(2);
  });

  test('retries are bounded: 1 + 3 attempts, then the error', async () => {
    scripted.server.on('POST', '/chat/Chatbot/RealEstateList', status(503));
    await expect(scripted.client.listListings({ chatbotId: 'demo' })).rejects.toMatchObject({ httpStatus: 503 });
    expect(scripted.server.requestsTo('/chat/Chatbot/RealEstateList')).toHaveLength(4);
  });

  test('a read is not retried on a non-transient status (500 of RealEstateList)', async () => {
    scripted.server.on('POST', '/chat/Chatbot/RealEstateList', status(500));
    await expect(scripted.client.listListings({ chatbotId: 'demo' })).rejects.toBeInstanceOf(ServiceError);
    expect(scripted.server.requests).toHaveLength(1);
  });

  test('GetSession is retried on 500 and on a dropped connection', async () => {
    scripted.server.on('POST', '/chat/Chatbot/GetSession', status(500), drop, ok({ SessionID: 77 }));
    await expect(scripted.client.getSession('demo')).resolves.toBe(77);
    expect(scripted.server.requestsTo('/chat/Chatbot/GetSession')).toHaveLength(3);
  });

  test('v1 GETs are retried on 503', async () => {
    scripted.server.on(
      'GET',
      '/v1/chatbots',
      status(503),
      json({ success: true, data: [], meta: { page: 1, limit: 20, total: 0, pages: 0 } }),
    );
    await expect(scripted.client.v1.listChatbots()).resolves.toMatchObject({ items: [] });
    expect(scripted.server.requests).toHaveLength(2);
  });
});

describe('bad requests never reach the server', () => {
  const cases: Array<[string, () => Promise<unknown>, RegExp]> = [
    [
      'SaleType outside the enumeration',
      () => scripted.client.createListing({ ...sampleListing('demo'), SaleType: 'sold' as never }),
      /SaleType must be one of for_sale, for_rent/,
    ],
    [
      'ChatBubbleColor not rgb()',
      () => scripted.client.editChatbot({ serialNumber: 'demo', ChatBubbleColor: '#2563eb' }),
      /ChatBubbleColor must look like rgb\(37,99,235\)/,
    ],
    [
      'ChatBubbleColor out of range',
      () => scripted.client.editChatbot({ serialNumber: 'demo', ChatBubbleColor: 'rgb(256,0,0)' }),
      /ChatBubbleColor must look like/,
    ],
    [
      'Temperature not an integer',
      () => scripted.client.editChatbot({ serialNumber: 'demo', Temperature: 0.7 }),
      /Temperature must be a whole number/,
    ],
    [
      'unknown setting',
      () => scripted.client.editChatbot({ serialNumber: 'demo', Colour: 'red' } as never),
      /unknown field Colour/,
    ],
    [
      'fileIds in Text mode',
      () => scripted.client.ask({ sessionId: 1, content: 'hi', fileIds: [1] }),
      /fileIds are allowed only when chatAskType is Image, Video or Audio/,
    ],
    [
      'two files in Video mode',
      () => scripted.client.ask({ sessionId: 1, content: '', chatAskType: 'Video', fileIds: [1, 2] }),
      /exactly one file when chatAskType is Video/,
    ],
    ['empty question', () => scripted.client.ask({ sessionId: 1, content: '  ' }), /content must not be empty/],
    [
      'missing required listing fields',
      () => scripted.client.createListing({ SerialNumber: 'demo' } as never),
      /SaleType is required/,
    ],
    [
      'bad KeyType',
      () => scripted.client.deleteListings('demo', ['1'], 'Id' as never),
      /KeyType must be one of ListingId, MLSNumber, URL/,
    ],
    [
      'no keys to delete',
      () => scripted.client.deleteListings('demo', [], 'URL'),
      /Keys must name at least one listing/,
    ],
    ['v1 limit over 100', () => scripted.client.v1.listChatbots({ limit: 500 }), /limit must be from 1 to 100/],
    [
      'v1 bad date',
      () => scripted.client.v1.analyticsOverview({ startDate: 'yesterday' }),
      /start_date must be an ISO 8601 date/,
    ],
    ['empty chatbot id', () => scripted.client.getSession(''), /serialNumber must not be empty/],
  ];
  test.each(cases)('%s', async (_name, call, message) => {
    const err = await call().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestValidationError);
    expect((err as Error).message).toMatch(message);
    expect((err as RequestValidationError).issues.length).toBeGreaterThan(0);
    expect(scripted.server.requests).toHaveLength(0);
  });

  test('a bad streamed question fails on iteration with zero requests', async () => {
    const run = async () => {
      for await (const _ of scripted.client.askStream({ sessionId: 1.5, content: 'x' })) void _;
    };
    await expect(run()).rejects.toThrow(/sessionID must be a whole number/);
    expect(scripted.server.requests).toHaveLength(0);
  });
});
