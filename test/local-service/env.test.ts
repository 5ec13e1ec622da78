import { optionsFromEnv, parseServiceEnv } from '../../src/local-service/env';

describe('service environment', () => {
  it('defaults', () => {
    const r = parseServiceEnv({});
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.env).toMatchObject({
      PORT: 8787,
      HOST: '127.0.0.1',
      SERVICE_DB: './data/service.db',
      CHATBOT_ID: 'demo',
      STREAM_FRAMING: 'sse',
    });
    expect(optionsFromEnv(r.env).llm).toBeUndefined();
  });

  it('reads every variable', () => {
    const r = parseServiceEnv({
      PORT: '9000',
      HOST: '0.0.0.0',
      SERVICE_DB: ':memory:',
      CHATBOT_SECRET_KEY: 's',
      CHATBOT_SESSION_KEY: 'ss',
      CHATBOT_API_KEY: 'a',
      CHATBOT_ID: 'acme',
      LLM_BASE_URL: 'http://127.0.0.1:1/v1',
      LLM_API_KEY: 'k',
      LLM_MODEL: 'm',
      STREAM_FRAMING: 'ndjson',
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(optionsFromEnv(r.env)).toEqual({
      port: 9000,
      host: '0.0.0.0',
      dbPath: ':memory:',
      secretKey: 's',
      sessionKey: 'ss',
      apiKey: 'a',
      chatbotId: 'acme',
      llm: { baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k', model: 'm' },
      streamFraming: 'ndjson',
    });
  });

  it('one message naming every bad variable', () => {
    const r = parseServiceEnv({
      PORT: 'eighty',
      STREAM_FRAMING: 'xml',
      LLM_BASE_URL: 'not a url',
      CHATBOT_SECRET_KEY: 'secret-value',
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toMatch(/PORT: must be a port number/);
    expect(r.message).toMatch(/STREAM_FRAMING: must be sse or ndjson/);
    expect(r.message).toMatch(/LLM_BASE_URL: must be an http\(s\) URL/);
    expect(r.message).not.toContain('secret-value');
  });
});
