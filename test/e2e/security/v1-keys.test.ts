/**
 * A chatbot's own /v1 api_key (returned when the chatbot is created) reaches that chatbot only:
 * through the local service's HTTP API it can neither read nor change another chatbot, its
 * conversations, messages or analytics, nor create chatbots, nor use the first family.
 */
import { join } from 'node:path';
import { buildLocalService } from '../../../src/local-service';
import { tempDir } from '../../support/app-env';
import { useStarted } from '../../support/server-setup';

interface Reply {
  status: number;
  body: { success?: boolean; Success?: boolean; data?: unknown; error?: { message?: string } } & Record<
    string,
    unknown
  >;
}

async function callAt(
  url: string,
  method: string,
  path: string,
  key: string | undefined,
  body?: unknown,
  auth = 'bearer',
): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== undefined) headers.authorization = auth === 'bearer' ? `Bearer ${key}` : key;
  const res = await fetch(`${url}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Reply['body'] };
}

/** The local service with chatbots A and B (each with its own api_key), and a conversation of B's holding one message. */
async function startTwoChatbots() {
  const tmp = tempDir('v1-keys-');
  const service = buildLocalService({ dbPath: join(tmp.dir, 'service.db'), fragmentDelayMs: 0 });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = service.app.server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const made = async (name: string): Promise<{ id: string; key: string }> => {
    const r = await callAt(url, 'POST', '/v1/chatbots', service.credentials.apiKey, { name });
    expect(r.status).toBe(201);
    const data = r.body.data as { id: string; api_key: string };
    expect(data.api_key).toEqual(expect.any(String));
    return { id: data.id, key: data.api_key };
  };
  const a = await made('Chatbot A');
  const b = await made('Chatbot B');
  const conv = await callAt(url, 'POST', '/v1/conversations', b.key, { chatbot_id: b.id, user_id: 'victim' });
  expect(conv.status).toBe(201);
  const bConversation = (conv.body.data as { id: string }).id;
  const sent = await callAt(url, 'POST', `/v1/conversations/${bConversation}/messages`, b.key, {
    content: 'Private question of B',
  });
  expect(sent.status).toBe(201);
  return {
    service,
    url,
    a,
    b,
    bConversation,
    async close() {
      await service.app.close();
      tmp.remove();
    },
  };
}

describe('local service security: a chatbot api_key cannot touch another chatbot', () => {
  const s = useStarted(startTwoChatbots);
  const call = (method: string, path: string, key: string | undefined, body?: unknown, auth?: string) =>
    callAt(s.url, method, path, key, body, auth);

  test('its own chatbot works with its key (the refusals below are about scope, not a broken key)', async () => {
    const own = await call('PATCH', `/v1/chatbots/${s.a.id}`, s.a.key, { name: 'Chatbot A renamed' });
    expect(own.status).toBe(200);
    const conv = await call('POST', '/v1/conversations', s.a.key, { chatbot_id: s.a.id });
    expect(conv.status).toBe(201);
  });

  const outOfScope: Array<[string, string, () => string, () => unknown]> = [
    ['PATCH /v1/chatbots/{B}', 'PATCH', () => `/v1/chatbots/${s.b.id}`, () => ({ name: 'Owned by A' })],
    ['POST /v1/conversations for B', 'POST', () => '/v1/conversations', () => ({ chatbot_id: s.b.id })],
    ['GET /v1/conversations/{B conversation}', 'GET', () => `/v1/conversations/${s.bConversation}`, () => undefined],
    [
      'POST /v1/conversations/{B conversation}/messages',
      'POST',
      () => `/v1/conversations/${s.bConversation}/messages`,
      () => ({ content: 'injected by A' }),
    ],
    [
      'GET /v1/analytics/overview?chatbot_id=B',
      'GET',
      () => `/v1/analytics/overview?chatbot_id=${encodeURIComponent(s.b.id)}`,
      () => undefined,
    ],
    ['POST /v1/chatbots (create)', 'POST', () => '/v1/chatbots', () => ({ name: 'Made by A' })],
  ];
  test.each(outOfScope)('%s with A’s key is refused (403, success false)', async (_label, method, path, body) => {
    const r = await call(method, path(), s.a.key, body());
    expect(r.status).toBe(403);
    expect(r.body.success).toBe(false);
    expect(JSON.stringify(r.body)).not.toContain('Private question of B');
  });

  test('lists with A’s key show nothing of B: chatbots, a user’s conversations, analytics default to A', async () => {
    const list = await call('GET', '/v1/chatbots?limit=100', s.a.key);
    expect(list.status).toBe(200);
    expect((list.body.data as Array<{ id: string }>).map((c) => c.id)).toEqual([s.a.id]);
    const convs = await call('GET', '/v1/users/victim/conversations', s.a.key);
    expect(convs.status).toBe(200);
    expect(convs.body.data).toEqual([]);
    const mine = await call('GET', '/v1/analytics/overview', s.a.key);
    expect(mine.status).toBe(200);
    // B's one message is not counted in A's figures.
    expect((mine.body.data as { metrics: { total_messages: number } }).metrics.total_messages).toBe(0);
  });

  test('A’s key is not a first-family credential: Edit and GetSession of B are refused', async () => {
    const edit = await call('POST', '/chat/Chatbot/Edit', s.a.key, { serialNumber: s.b.id, Name: 'Owned by A' }, 'raw');
    expect(edit.body.Success).toBe(false);
    const session = await call('POST', '/chat/Chatbot/GetSession', s.a.key, { serialNumber: s.b.id }, 'raw');
    expect(session.body.Success).toBe(false);
    const bearer = await call('POST', '/chat/Chatbot/Edit', s.a.key, { serialNumber: s.b.id, Name: 'Owned by A' });
    expect(bearer.body.Success).toBe(false);
  });

  test('after all that, B is unchanged and its conversation has only its own messages', async () => {
    const conv = await call('GET', `/v1/conversations/${s.bConversation}`, s.b.key);
    expect(conv.status).toBe(200);
    const messages = (conv.body.data as { messages: Array<{ role: string; content: string }> }).messages;
    expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['Private question of B']);
    const list = await call('GET', '/v1/chatbots?limit=100', s.b.key);
    expect((list.body.data as Array<{ id: string; name: string }>).map((c) => c.name)).toEqual(['Chatbot B']);
    expect(s.service.context.chatbots.list({ page: 1, limit: 100 }).items.map((c) => c.settings.Name)).not.toContain(
      'Made by A',
    );
  });
});
