/**
 * `npm run service` as an operator runs it: the environment it honours, the exact ready line,
 * generated credentials printed when created (only then) and kept across a restart on the same SERVICE_DB.
 */
import { spawn, type ChildProcess } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

const ROOT = join(__dirname, '..', '..');
const READY = /^Chatbot service listening on http:\/\/127\.0\.0\.1:(\d+)$/m;

type Running = { child: ChildProcess; output: () => string; base: string };

function runService(extra: NodeJS.ProcessEnv): Promise<Running> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: '0',
    HOST: '127.0.0.1',
    ...extra,
  };
  // Own process group, so the test can stop npm and the node process it started.
  const child = spawn('npm', ['run', 'service', '--silent'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service not ready; output:\n${out}`)), 120_000);
    const onData = (c: Buffer) => {
      out += c.toString('utf8');
      const m = READY.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, output: () => out, base: `http://127.0.0.1:${m[1]}` });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}; output:\n${out}`));
    });
  });
}

function stop(r: Running): Promise<void> {
  return new Promise((resolve) => {
    if (r.child.exitCode !== null || r.child.signalCode !== null) return resolve();
    r.child.removeAllListeners('exit');
    r.child.once('exit', () => resolve());
    if (r.child.pid !== undefined) process.kill(-r.child.pid, 'SIGTERM');
  });
}

async function post(
  base: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Record<string, unknown>;
}

const generated = (out: string, name: string): string => {
  const m = new RegExp(`${name}=(\\S+)`).exec(out);
  if (!m?.[1]) throw new Error(`${name} not printed:\n${out}`);
  return m[1];
};

describe('npm run service', () => {
  let dir: string;
  const running: Running[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-proc-'));
  });
  afterAll(async () => {
    await Promise.all(running.map(stop));
    rmSync(dir, { recursive: true, force: true });
  });

  test('prints the ready line, generated keys kept across a restart, CHATBOT_ID honoured', async () => {
    const db = join(dir, 'service.db');
    const first = await runService({ SERVICE_DB: db, CHATBOT_ID: 'acme' });
    running.push(first);
    const secret = generated(first.output(), 'CHATBOT_SECRET_KEY');
    const sessionKey = generated(first.output(), 'CHATBOT_SESSION_KEY');
    const apiKey = generated(first.output(), 'CHATBOT_API_KEY');

    const s = await post(first.base, '/chat/Chatbot/GetSession', { serialNumber: 'acme' }, { authorization: secret });
    expect(s.Success).toBe(true);
    const sessionID = (s.Data as { SessionID: number }).SessionID;
    const list = await post(
      first.base,
      '/chat/Chatbot/RealEstateList',
      { SerialNumber: 'acme' },
      { 'chatrobot-sessionkey': sessionKey },
    );
    expect((list.Data as { VirtualCount: number }).VirtualCount).toBeGreaterThanOrEqual(20);
    const v1 = await fetch(`${first.base}/v1/chatbots`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(((await v1.json()) as { data: { id: string }[] }).data.map((c) => c.id)).toContain('acme');
    await stop(first);

    const second = await runService({ SERVICE_DB: db, CHATBOT_ID: 'acme' });
    running.push(second);
    // Kept keys are not printed again: only when they were created.
    for (const key of [secret, sessionKey, apiKey]) expect(second.output()).not.toContain(key);
    expect(second.output()).toMatch(/CHATBOT_SECRET_KEY, CHATBOT_SESSION_KEY, CHATBOT_API_KEY: .*not shown again/);
    const ask = await post(
      second.base,
      '/chat/Chat/ClientAsk',
      { sessionID, content: 'hello' },
      { authorization: secret },
    );
    expect(ask.Success).toBe(true);
    await stop(second);
  }, 240_000);

  test('credentials from the environment are the ones accepted and are not printed; STREAM_FRAMING=ndjson', async () => {
    const r = await runService({
      SERVICE_DB: ':memory:',
      CHATBOT_SECRET_KEY: 'sec-env-1',
      CHATBOT_SESSION_KEY: 'ses-env-1',
      CHATBOT_API_KEY: 'api-env-1',
      STREAM_FRAMING: 'ndjson',
    });
    running.push(r);
    expect(r.output()).not.toContain('sec-env-1');
    const wrong = await post(r.base, '/chat/Chatbot/GetSession', { serialNumber: 'demo' }, { authorization: 'nope' });
    expect(wrong.Success).toBe(false);
    const s = await post(r.base, '/chat/Chatbot/GetSession', { serialNumber: 'demo' }, { authorization: 'sec-env-1' });
    const sessionID = (s.Data as { SessionID: number }).SessionID;
    const res = await fetch(`${r.base}/chat/Chat/ClientAsk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'sec-env-1' },
      body: JSON.stringify({ sessionID, content: 'hello', stream: true }),
    });
    const raw = await res.text();
    expect(raw).not.toMatch(/^data:/m);
    const objects = raw
      .trim()
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const final = objects[objects.length - 1];
    expect(
      objects
        .slice(0, -1)
        .map((o) => o.content)
        .join(''),
    ).toBe(final?.Answer);
    await stop(r);
  }, 240_000);

  test('a bad variable stops start-up with a message naming it', async () => {
    await expect(runService({ SERVICE_DB: ':memory:', STREAM_FRAMING: 'xml', PORT: 'abc' })).rejects.toThrow(
      /PORT[\s\S]*STREAM_FRAMING/,
    );
  }, 120_000);
});
