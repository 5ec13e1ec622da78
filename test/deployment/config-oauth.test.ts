/** Slack's OAuth mode in the environment: which variables turn it on, and the key it cannot start without. */
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '../../src/deployment/config';
import { redactConfig } from '../../src/deployment/config-redact';

const KEY = randomBytes(32).toString('base64');
const OAUTH = {
  CHATBOT_API_URL: 'http://127.0.0.1:9',
  SLACK_CLIENT_ID: '1111.2222',
  SLACK_CLIENT_SECRET: 'client-secret',
  SLACK_STATE_SECRET: 'state-secret',
  SLACK_SIGNING_SECRET: 'signing-secret',
};

function problems(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

test('the OAuth variables with the signing secret and no bot token: OAuth mode, the key kept for the store', () => {
  const c = loadConfig({ ...OAUTH, STATE_ENCRYPTION_KEY: KEY });
  expect(c.slack).toMatchObject({
    botToken: undefined,
    mode: 'http',
    oauth: { clientId: '1111.2222', clientSecret: 'client-secret', stateSecret: 'state-secret' },
  });
  expect(c.encryption).toEqual({ key: KEY, previousKey: undefined });
  const printable = JSON.stringify(redactConfig(c));
  for (const secret of ['client-secret', 'state-secret', KEY]) expect(printable).not.toContain(secret);
});

test('OAuth mode does not start without STATE_ENCRYPTION_KEY: the error names it and how to make one', () => {
  const err = problems(OAUTH);
  expect(err.problems.map((p) => p.variable)).toEqual(['STATE_ENCRYPTION_KEY']);
  expect(err.message).toContain('STATE_ENCRYPTION_KEY: is not set');
  expect(err.message).toContain('openssl rand -base64 32');
});

test('a key that is not 32 bytes of base64, now or previous, is refused by name', () => {
  const err = problems({ ...OAUTH, STATE_ENCRYPTION_KEY: 'c2hvcnQ=', STATE_ENCRYPTION_KEY_PREVIOUS: 'not base64!' });
  expect(err.problems.map((p) => p.variable).sort()).toEqual(['STATE_ENCRYPTION_KEY', 'STATE_ENCRYPTION_KEY_PREVIOUS']);
  expect(err.message).toMatch(/STATE_ENCRYPTION_KEY: must be 32 bytes in base64 \(it decodes to 5\)/);
  expect(err.message).toContain('openssl rand -base64 32');
});

test('half an OAuth set, or OAuth beside SLACK_BOT_TOKEN, names what to fix', () => {
  const half = problems({ ...OAUTH, SLACK_CLIENT_SECRET: '', STATE_ENCRYPTION_KEY: KEY });
  expect(half.problems.map((p) => p.variable)).toEqual(['SLACK_CLIENT_SECRET']);
  const both = problems({ ...OAUTH, SLACK_BOT_TOKEN: 'xoxb-1', STATE_ENCRYPTION_KEY: KEY });
  expect(both.message).toMatch(/SLACK_CLIENT_ID: is set together with SLACK_BOT_TOKEN/);
});

test('with SLACK_BOT_TOKEN the app stays single-workspace, with no OAuth', () => {
  const c = loadConfig({ CHATBOT_API_URL: 'http://127.0.0.1:9', SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' });
  expect(c.slack?.botToken).toBe('xoxb-1');
  expect(c.slack?.oauth).toBeUndefined();
});

describe('SLACK_DISTRIBUTION: which of Slack history limits apply', () => {
  test('OAuth mode is a distributed app unless told; one token is an internal one', () => {
    expect(loadConfig({ ...OAUTH, STATE_ENCRYPTION_KEY: KEY }).slack?.distribution).toBe('distributed');
    const token = { CHATBOT_API_URL: 'http://127.0.0.1:9', SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' };
    expect(loadConfig(token).slack?.distribution).toBe('internal');
    expect(loadConfig({ ...token, SLACK_DISTRIBUTION: 'distributed' }).slack?.distribution).toBe('distributed');
    expect(
      loadConfig({ ...OAUTH, STATE_ENCRYPTION_KEY: KEY, SLACK_DISTRIBUTION: 'Marketplace' }).slack?.distribution,
    ).toBe('marketplace');
  });

  test('another value stops start-up naming the three it may be', () => {
    const err = problems({ ...OAUTH, STATE_ENCRYPTION_KEY: KEY, SLACK_DISTRIBUTION: 'public' });
    expect(err.problems.map((p) => p.variable)).toEqual(['SLACK_DISTRIBUTION']);
    expect(err.message).toMatch(/SLACK_DISTRIBUTION: must be one of internal, marketplace, distributed/);
  });
});
