import { type Harness, harness, KEYS, streamObjects } from './helpers';

interface V1<T> {
  success: boolean;
  data: T;
  meta?: Record<string, number>;
  error?: { code: string; message: string };
}
interface Bot {
  id: string;
  name: string;
  status: string;
  api_key?: string;
  created_at: string;
  updated_at: string;
  settings: Record<string, unknown>;
}
interface Conv {
  id: string;
  chatbot_id: string;
  status: string;
  session_token?: string;
  messages?: { id: string; role: string; content: string; timestamp: string }[];
  message_count?: number;
}

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

describe('/v1 chatbots', () => {
  it('lists the demo chatbot with page meta', async () => {
    const r = await h.v1<V1<Bot[]>>('GET', '/v1/chatbots');
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.data.map((b) => b.id)).toContain('demo');
    expect(r.body.meta).toEqual({ page: 1, limit: 20, total: expect.any(Number), pages: expect.any(Number) });
  });

  it('creates a draft chatbot with an api_key that is a first-family serialNumber', async () => {
    const r = await h.v1<V1<Bot>>('POST', '/v1/chatbots', {
      name: 'Lakeside Homes',
      settings: { language: 'Spanish', tone: 'warm' },
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      name: 'Lakeside Homes',
      status: 'draft',
      api_key: expect.any(String),
      created_at: expect.any(String),
    });
    expect(r.body.data.settings).toMatchObject({ language: 'Spanish', tone: 'warm' });
    const gs = await h.post<{ SessionID: number }>('/chat/Chatbot/GetSession', { serialNumber: r.body.data.id });
    expect(gs.body.Success).toBe(true);
    const list = await h.post<{ VirtualCount: number }>(
      '/chat/Chatbot/RealEstateList',
      { SerialNumber: r.body.data.id },
      { 'chatrobot-sessionkey': KEYS.sessionKey },
    );
    expect(list.body.Data.VirtualCount).toBe(0);
  });

  it('updates name, settings and status; updated_at moves', async () => {
    const c = (await h.v1<V1<Bot>>('POST', '/v1/chatbots', { name: 'To rename' })).body.data;
    const r = await h.v1<V1<Bot>>('PATCH', `/v1/chatbots/${c.id}`, {
      name: 'Renamed',
      settings: { max_tokens: 300 },
      status: 'active',
    });
    expect(r.body.data).toMatchObject({ id: c.id, name: 'Renamed', status: 'active' });
    expect(r.body.data.settings.max_tokens).toBe(300);
    expect(Date.parse(r.body.data.updated_at)).toBeGreaterThan(Date.parse(c.updated_at));
    expect(r.body.data.api_key).toBeUndefined();
  });

  it('filters by status, pages with limit, refuses an unknown status and limit > 100', async () => {
    const drafts = await h.v1<V1<Bot[]>>('GET', '/v1/chatbots?status=draft');
    expect(drafts.body.data.every((b) => b.status === 'draft')).toBe(true);
    const one = await h.v1<V1<Bot[]>>('GET', '/v1/chatbots?limit=1&page=2');
    expect(one.body.data).toHaveLength(1);
    expect(one.body.meta).toMatchObject({ page: 2, limit: 1 });
    const bad = await h.v1<V1<unknown>>('GET', '/v1/chatbots?status=archived');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      success: false,
      error: { code: 'bad_request', message: expect.stringContaining('status must be one of active, inactive, draft') },
    });
    expect((await h.v1('GET', '/v1/chatbots?limit=101')).status).toBe(400);
  });

  it('refuses a missing name, a bad key and no key', async () => {
    const r = await h.v1<V1<unknown>>('POST', '/v1/chatbots', { description: 'x' });
    expect(r.status).toBe(400);
    expect(r.body.error?.message).toContain('name');
    expect((await h.v1('GET', '/v1/chatbots', undefined, 'wrong')).status).toBe(401);
    const none = await h.request('GET', '/v1/chatbots');
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ success: false, error: { code: 'unauthorized' } });
    const notObject = await h.v1<V1<unknown>>('POST', '/v1/chatbots', [1, 2]);
    expect(notObject.status).toBe(400);
    expect(notObject.body.error?.message).toContain('JSON object');
  });
});

describe('/v1 conversations and messages', () => {
  it('start, send (plain), get with and without messages', async () => {
    const c = await h.v1<V1<Conv>>('POST', '/v1/conversations', {
      chatbot_id: 'demo',
      user_id: 'u-1',
      metadata: { channel: 'web' },
    });
    expect(c.status).toBe(201);
    expect(c.body.data).toMatchObject({ chatbot_id: 'demo', status: 'active', session_token: expect.any(String) });
    const m = await h.v1<
      V1<{ message_id: string; conversation_id: string; response: { id: string; content: string; timestamp: string } }>
    >('POST', `/v1/conversations/${c.body.data.id}/messages`, { content: 'condos for sale in Miami' });
    expect(m.body.data.conversation_id).toBe(c.body.data.id);
    expect(m.body.data.response.content).toContain('Miami');
    expect(Number.isNaN(Date.parse(m.body.data.response.timestamp))).toBe(false);
    const got = await h.v1<V1<Conv>>('GET', `/v1/conversations/${c.body.data.id}`);
    expect(got.body.data.messages?.map((x) => x.role)).toEqual(['user', 'assistant']);
    expect(got.body.data.messages?.[1]).toMatchObject({
      id: m.body.data.response.id,
      content: m.body.data.response.content,
    });
    const bare = await h.v1<V1<Conv>>('GET', `/v1/conversations/${c.body.data.id}?include_messages=false`);
    expect('messages' in bare.body.data).toBe(false);
    expect((await h.v1('GET', `/v1/conversations/${c.body.data.id}?include_messages=maybe`)).status).toBe(400);
  });

  it('a first-family session is a conversation too (one deployment)', async () => {
    const sid = await h.session();
    await h.post('/chat/Chat/ClientAsk', { sessionID: sid, content: 'hello' });
    const got = await h.v1<V1<Conv>>('GET', `/v1/conversations/${sid}`);
    expect(got.body.data.messages).toHaveLength(2);
  });

  it('streams deltas then the message object', async () => {
    const c = (await h.v1<V1<Conv>>('POST', '/v1/conversations', { chatbot_id: 'demo' })).body.data;
    const r = await h.v1<unknown>('POST', `/v1/conversations/${c.id}/messages`, {
      content: 'rentals in Austin',
      stream: true,
    });
    expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(r.raw.startsWith('data: {"content":')).toBe(true);
    const objs = streamObjects(r.raw);
    const final = objs[objs.length - 1] as {
      message_id: string;
      conversation_id: string;
      response: { content: string };
    };
    expect(final.conversation_id).toBe(c.id);
    expect(
      objs
        .slice(0, -1)
        .map((o) => o.content)
        .join(''),
    ).toBe(final.response.content);
  });

  it('unknown conversation is 404, empty content 400', async () => {
    expect((await h.v1('GET', '/v1/conversations/nope')).status).toBe(404);
    const c = (await h.v1<V1<Conv>>('POST', '/v1/conversations', { chatbot_id: 'demo' })).body.data;
    expect((await h.v1('POST', `/v1/conversations/${c.id}/messages`, { content: '' })).status).toBe(400);
    expect((await h.v1('POST', '/v1/conversations', { chatbot_id: 'ghost' })).status).toBe(404);
  });

  it("lists a user's conversations with message_count, filtered by status", async () => {
    const c1 = (await h.v1<V1<Conv>>('POST', '/v1/conversations', { chatbot_id: 'demo', user_id: 'alice' })).body.data;
    await h.v1<V1<Conv>>('POST', '/v1/conversations', { chatbot_id: 'demo', user_id: 'alice' });
    await h.v1('POST', `/v1/conversations/${c1.id}/messages`, { content: 'hello' });
    const r = await h.v1<V1<Conv[]>>('GET', '/v1/users/alice/conversations?limit=10');
    expect(r.body.meta).toEqual({ total: 2, limit: 10 });
    expect(r.body.data.find((x) => x.id === c1.id)?.message_count).toBe(2);
    expect((await h.v1<V1<Conv[]>>('GET', '/v1/users/alice/conversations?status=completed')).body.data).toEqual([]);
    expect((await h.v1('GET', '/v1/users/alice/conversations?status=closed')).status).toBe(400);
  });
});

describe('/v1 analytics', () => {
  it('counts conversations and messages of both families within the period', async () => {
    const a = await harness({ chatbotId: 'stats' });
    try {
      const sid = await a.session('stats');
      await a.post('/chat/Chat/ClientAsk', { sessionID: sid, content: 'homes in Austin' });
      const c = (await a.v1<V1<Conv>>('POST', '/v1/conversations', { chatbot_id: 'stats', user_id: 'bob' })).body.data;
      await a.v1('POST', `/v1/conversations/${c.id}/messages`, { content: 'what is the meaning of life?' });
      const r = await a.v1<V1<{ period: { start: string; end: string }; metrics: Record<string, number> }>>(
        'GET',
        '/v1/analytics/overview?chatbot_id=stats',
      );
      expect(r.body.data.metrics).toMatchObject({
        total_conversations: 2,
        total_messages: 4,
        unique_users: 2,
        avg_conversation_length: 2,
        resolution_rate: 0.5,
      });
      expect(r.body.data.metrics.avg_response_time).toBeGreaterThanOrEqual(0);
      const past = await a.v1<V1<{ metrics: Record<string, number> }>>(
        'GET',
        '/v1/analytics/overview?start_date=2020-01-01&end_date=2020-12-31',
      );
      expect(past.body.data.metrics.total_conversations).toBe(0);
      const bad = await a.v1<V1<unknown>>('GET', '/v1/analytics/overview?start_date=yesterday');
      expect(bad.status).toBe(400);
      expect(bad.body.error?.message).toContain('start_date');
    } finally {
      await a.close();
    }
  });
});

describe('/v1 key scoping', () => {
  it("a chatbot's api_key touches only its chatbot; the account key everything", async () => {
    const mine = (await h.v1<V1<Bot>>('POST', '/v1/chatbots', { name: 'Scoped' })).body.data;
    const key = mine.api_key as string;
    const list = await h.v1<V1<Bot[]>>('GET', '/v1/chatbots', undefined, key);
    expect(list.body.data.map((b) => b.id)).toEqual([mine.id]);
    expect((await h.v1('PATCH', `/v1/chatbots/${mine.id}`, { name: 'Mine' }, key)).status).toBe(200);
    expect((await h.v1('PATCH', '/v1/chatbots/demo', { name: 'Hijack' }, key)).status).toBe(403);
    expect((await h.v1('POST', '/v1/chatbots', { name: 'More' }, key)).status).toBe(403);
    expect((await h.v1('POST', '/v1/conversations', { chatbot_id: 'demo' }, key)).status).toBe(403);
    const demoConv = (await h.v1<V1<Conv>>('POST', '/v1/conversations', { chatbot_id: 'demo' })).body.data;
    expect([403, 404]).toContain((await h.v1('GET', `/v1/conversations/${demoConv.id}`, undefined, key)).status);
    expect([403, 404]).toContain(
      (await h.v1('POST', `/v1/conversations/${demoConv.id}/messages`, { content: 'hi' }, key)).status,
    );
    expect((await h.v1('GET', '/v1/analytics/overview?chatbot_id=demo', undefined, key)).status).toBe(403);
    const own = await h.v1<V1<Conv>>('POST', '/v1/conversations', { chatbot_id: mine.id }, key);
    expect(own.status).toBe(201);
    expect((await h.v1('GET', `/v1/conversations/${own.body.data.id}`, undefined, key)).status).toBe(200);
    // The chatbot key is no first-family credential.
    expect(
      (await h.post('/chat/Chatbot/GetSession', { serialNumber: mine.id }, { authorization: key })).body.Success,
    ).toBe(false);
  });
});
