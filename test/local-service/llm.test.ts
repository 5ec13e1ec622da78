import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai-server';
import { type Harness, harness, streamObjects } from './helpers';

let fake: FakeOpenAi;
let h: Harness;
beforeAll(async () => {
  fake = await startFakeOpenAi(['The Austin ', 'home at ', '2345 Barton Springs Rd ', 'is available.']);
  h = await harness({ llm: { baseUrl: fake.baseUrl, apiKey: 'llm-key', model: 'test-model' } });
});
afterAll(async () => {
  await h.close();
  await fake.close();
});

describe('answers through an OpenAI-compatible backend', () => {
  it('streams the model deltas through as fragments; the final Answer is their concatenation', async () => {
    await h.post('/chat/Chatbot/Edit', {
      serialNumber: 'demo',
      SystemMessage: 'You are Sky, a realtor bot.',
      Temperature: 1,
      AIResponseLanguage: 'French',
    });
    const sid = await h.session();
    fake.reply.totalTokens = 77;
    const r = await h.post('/chat/Chat/ClientAsk', { sessionID: sid, content: 'Any homes in Austin?', stream: true });
    const objs = streamObjects(r.raw);
    expect(objs.slice(0, -1).map((o) => o.content)).toEqual([
      'The Austin ',
      'home at ',
      '2345 Barton Springs Rd ',
      'is available.',
    ]);
    expect(objs[objs.length - 1]).toMatchObject({
      Answer: 'The Austin home at 2345 Barton Springs Rd is available.',
      TotalToken: 77,
    });

    const req = fake.requests[fake.requests.length - 1];
    expect(req.headers.authorization).toBe('Bearer llm-key');
    expect(req.body).toMatchObject({ model: 'test-model', stream: true, temperature: 1 });
    const system = req.body.messages[0];
    expect(system.role).toBe('system');
    expect(system.content).toContain('You are Sky, a realtor bot.');
    expect(system.content).toContain('French');
    expect(system.content).toMatch(/Austin, TX/);
    expect(system.content).not.toMatch(/Denver, CO/);
    expect(req.body.messages[req.body.messages.length - 1]).toEqual({ role: 'user', content: 'Any homes in Austin?' });
  });

  it('sends the session history and answers plain requests too', async () => {
    const sid = await h.session();
    await h.post('/chat/Chat/ClientAsk', { sessionID: sid, content: 'first question' });
    const r = await h.post<{ content: string; noAnswer: boolean }>('/chat/Chat/ClientAsk', {
      sessionID: sid,
      content: 'second question',
    });
    expect(r.body.Data.content).toBe('The Austin home at 2345 Barton Springs Rd is available.');
    expect(r.body.Data.noAnswer).toBe(false);
    const msgs = fake.requests[fake.requests.length - 1].body.messages;
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  });

  it('a failing backend is an envelope error, not a crash', async () => {
    fake.reply.status = 503;
    try {
      const sid = await h.session();
      const r = await h.post('/chat/Chat/ClientAsk', { sessionID: sid, content: 'hi', stream: true });
      expect(r.body).toMatchObject({ Success: false });
      expect((r.body as { Message: string }).Message).toContain('503');
    } finally {
      delete fake.reply.status;
    }
  });
});
