/**
 * LLM_BASE_URL / LLM_API_KEY / LLM_MODEL: the bridge passes them to its in-process local chatbot
 * service, which then answers through the OpenAI-compatible backend.
 */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { ConfigError, loadConfig } from '../../src/deployment/config';
import { redactConfig } from '../../src/deployment/config-redact';
import type { AppHandle } from '../../src/app';
import { bareConfig, startBareApp } from '../support/bare-app';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai-server';

test('LLM_* map to the local service backend; a bad LLM_BASE_URL is named; the key is redacted', () => {
  const c = loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_API_KEY: 'llm-secret', LLM_MODEL: 'm1' });
  expect(c.localLlm).toEqual({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'llm-secret', model: 'm1' });
  expect(JSON.stringify(redactConfig(c))).not.toContain('llm-secret');
  expect(loadConfig({}).localLlm).toBeUndefined();
  try {
    loadConfig({ LLM_BASE_URL: 'not a url' });
    throw new Error('expected a ConfigError');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/LLM_BASE_URL: must be an http\(s\) URL/);
  }
});

describe('the in-process local service with LLM_BASE_URL', () => {
  let fake: FakeOpenAi;
  let app: AppHandle;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bridge-llm-'));
    fake = await startFakeOpenAi(['From ', 'the model.']);
    const config = bareConfig({
      STATE_URL: `sqlite:${join(dir, 'bridge.db')}`,
      LLM_BASE_URL: fake.baseUrl,
      LLM_API_KEY: 'llm-key',
      LLM_MODEL: 'test-model',
    });
    app = await startBareApp(config);
  });
  afterAll(async () => {
    await app?.close(2000);
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('answers come from the backend', async () => {
    const sessionId = await app.client.getSession('demo');
    const answer = await app.client.ask({ sessionId, content: 'Any homes in Austin?' });
    expect(answer.content).toBe('From the model.');
    const req = fake.requests[fake.requests.length - 1];
    expect(req?.headers.authorization).toBe('Bearer llm-key');
    expect(req?.body).toMatchObject({ model: 'test-model' });
  });
});
