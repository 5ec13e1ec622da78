/**
 * The log scrubber on its own: errors as the SDKs throw them (request config with an Authorization
 * header, a nested `original`, a cause chain), URLs with interaction tokens, secret-named keys and
 * token shapes, at any depth, through a child of the safe logger.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { SecretScrubber, safeLogger } from '../../src/deployment/log-safety';

const BOT = 'xoxb-SECRET-2233445566-aabbccddeeff';
const KEY = 'sk-live-SECRET-7f3a9c2e5b1d';

function capture(): { log: pino.Logger; text: () => string } {
  const lines: string[] = [];
  const base = pino(
    { level: 'trace' },
    new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  );
  return { log: safeLogger(base, new SecretScrubber([BOT, KEY])), text: () => lines.join('') };
}

test('an SDK error with the token deep in its request config logs its message, not the token', () => {
  const { log, text } = capture();
  const original = Object.assign(new Error('read ECONNRESET'), {
    code: 'ECONNRESET',
    config: { headers: { Authorization: `Bearer ${BOT}` }, data: `token=${BOT}` },
    request: { _header: `POST /api/chat.postMessage HTTP/1.1\r\nAuthorization: Bearer ${BOT}` },
  });
  const err = Object.assign(new Error('A request error occurred: read ECONNRESET'), {
    code: 'slack_webapi_request_error',
    original,
  });
  log
    .child({ part: 'slack' })
    .error({ err, deep: { a: { b: { c: { headers: { authorization: KEY }, note: `key ${KEY}` } } } } }, 'post failed');
  log.warn(err);
  const out = text();
  expect(out).toContain('read ECONNRESET');
  expect(out).toContain('slack_webapi_request_error');
  expect(out).not.toContain(BOT);
  expect(out).not.toContain(KEY);
  expect(out).not.toContain('SECRET');
});

test('interaction and webhook tokens in URLs, Bearer/Bot credentials and unknown Slack tokens are censored', () => {
  const { log, text } = capture();
  const interactionToken = 'aW50ZXJhY3Rpb246MTIzNDU2Nzg5OmFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6';
  const err = Object.assign(new Error('Internal Server Error'), {
    url: `https://discord.com/api/v10/webhooks/123456/${interactionToken}/messages/@original`,
    cause: new Error(`POST /api/v10/interactions/987/${interactionToken}/callback failed`),
  });
  log.error(
    {
      err,
      header: 'Bot MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GhIjKl.abcdefghijklmnopqrstuvwxyz012345',
      other: 'xoxp-999-888-unknown',
    },
    'discord failed',
  );
  const out = text();
  expect(out).toContain('/webhooks/123456/***');
  expect(out).not.toContain(interactionToken);
  expect(out).not.toContain('MTIzNDU2Nzg5MDEyMzQ1Njc4OQ');
  expect(out).not.toContain('xoxp-999');
});

test('cycles, buffers and ordinary fields survive', () => {
  const { log, text } = capture();
  const a: Record<string, unknown> = { name: 'a', count: 3, tokenCount: 7 };
  a.self = a;
  log.info({ a, data: Buffer.alloc(10) }, 'ok');
  const line = JSON.parse(text()) as { a: { name: string; count: number; self: string }; data: string };
  expect(line.a).toMatchObject({ name: 'a', count: 3, self: '[Circular]' });
  expect(line.data).toBe('[10 bytes]');
});

test('message strings, interpolation values and an error standing for the message are scrubbed', () => {
  const { log, text } = capture();
  log.info('x %s', KEY);
  log.warn(`posting with ${BOT} failed`);
  log.info({ n: 1 }, 'key %s and %o and %j', KEY, { auth: `Bearer ${BOT}` }, { note: KEY });
  log.error(new Error(`refused ${KEY}`));
  log.error({ err: new Error(`refused ${BOT}`) });
  const out = text();
  expect(out).not.toContain(KEY);
  expect(out).not.toContain(BOT);
  expect(out).not.toContain('SECRET');
  const msgs = out
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { msg?: string }).msg);
  expect(msgs).toEqual([
    'x ***',
    'posting with *** failed',
    expect.stringContaining('key *** and'),
    'refused ***',
    'refused ***',
  ]);
});

test('child bindings and message prefixes are scrubbed at every depth, whatever the level', () => {
  const { log, text } = capture();
  const child = log
    .child({ token: KEY, note: `key ${KEY}` })
    .child({ header: `Bearer ${BOT}` }, { msgPrefix: `[${KEY}] ` });
  child.info('hello');
  child.level = 'debug';
  child.debug('after a level change %s', BOT);
  const grand = child.child({ deeper: { url: `https://x/?k=${KEY}` } });
  grand.setBindings({ later: BOT });
  grand.warn('deep');
  const out = text();
  expect(out).toContain('hello');
  expect(out).toContain('after a level change');
  expect(out).toContain('deep');
  expect(out).not.toContain(KEY);
  expect(out).not.toContain(BOT);
  expect(out).not.toContain('SECRET');
});

describe("tenants' keys: learned only when given, and a bounded number of them", () => {
  test('a learned key is scrubbed; a string never learned is not', () => {
    const scrubber = new SecretScrubber([BOT]);
    scrubber.learn('tenant-key-checked-0001');
    expect(scrubber.text('a tenant-key-checked-0001 b')).toBe('a *** b');
    expect(scrubber.text('typed-but-refused-0002')).toBe('typed-but-refused-0002');
  });

  test('at most maxLearned keys: the least recently learned or seen goes first, the deployment’s own never', () => {
    const scrubber = new SecretScrubber([KEY], 3);
    scrubber.learn('tenant-key-000001', 'tenant-key-000002', 'tenant-key-000003');
    // Key 1 is seen in a log line: now the most recent; key 2 is the oldest.
    expect(scrubber.text('x tenant-key-000001')).toBe('x ***');
    scrubber.learn('tenant-key-000004');
    expect(scrubber.learnedCount).toBe(3);
    expect(scrubber.text('tenant-key-000002')).toBe('tenant-key-000002');
    for (const kept of ['tenant-key-000001', 'tenant-key-000003', 'tenant-key-000004'])
      expect(scrubber.text(kept)).toBe('***');
    for (let i = 10; i < 1010; i++) scrubber.learn(`tenant-key-00${i}`);
    expect(scrubber.learnedCount).toBe(3);
    expect(scrubber.text(KEY)).toBe('***');
  });
});
