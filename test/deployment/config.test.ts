import { ConfigError, CONFIG_VARIABLES, loadConfig } from '../../src/deployment/config';
import { redactConfig } from '../../src/deployment/config-redact';
import { leaseTimings, takeoverBoundMs } from '../../src/core/leases';
import { readFileSync } from 'node:fs';
import path from 'node:path';

function problems(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

function problemsOf(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

test('defaults with an empty environment', () => {
  const c = loadConfig({ INSTANCE_ID: 'i1' });
  expect(c).toEqual({
    chatbot: {
      apiUrl: undefined,
      embedded: true,
      v1ApiUrl: undefined,
      secretKey: undefined,
      sessionKey: undefined,
      apiKey: undefined,
      chatbotId: 'demo',
    },
    stateUrl: 'sqlite:./data/bridge.db',
    state: { kind: 'sqlite', path: './data/bridge.db' },
    redisTlsVerify: true,
    port: 3000,
    serviceDb: './data/service.db',
    answerIdleTimeoutMs: 30000,
    handoffClaimTimeoutMs: 600000,
    handoffRemindMs: 300000,
    handoffOnNoAnswer: false,
    retentionDays: 90,
    userRateLimit: 30,
    logLevel: 'info',
    instanceId: 'i1',
    leaseTtlMs: 6000,
    office: { escalate: [], assign: 'none', offerMs: 120000, digestHour: 8 },
    linkHosts: [],
  });
  expect(c.mail).toBeUndefined();
  expect(c.slack).toBeUndefined();
  expect(c.discord).toBeUndefined();
  expect(loadConfig({}).instanceId).toMatch(/-\d+$/);
});

test('a full environment maps to typed camelCase config', () => {
  const c = loadConfig({
    CHATBOT_API_URL: 'https://api.example.com/',
    CHATBOT_SECRET_KEY: 'sec',
    CHATBOT_SESSION_KEY: 'ses',
    CHATBOT_API_KEY: 'api',
    CHATBOT_ID: 'bot-9',
    SLACK_BOT_TOKEN: 'xoxb-1',
    SLACK_APP_TOKEN: 'xapp-1',
    SLACK_API_URL: 'http://127.0.0.1:9999/api',
    SLACK_HANDOFF_CHANNEL: 'C1',
    SLACK_ADMIN_USERS: 'U1, U2,,',
    DISCORD_TOKEN: 'dt',
    DISCORD_APPLICATION_ID: '123',
    DISCORD_GUILD_ID: '456',
    DISCORD_ADMIN_ROLES: 'R1,R2',
    STATE_URL: 'redis://127.0.0.1:6379/5',
    PORT: '0',
    ANSWER_IDLE_TIMEOUT_S: '2.5',
    HANDOFF_CLAIM_TIMEOUT_S: '60',
    HANDOFF_ON_NO_ANSWER: 'true',
    LOG_LEVEL: 'DEBUG',
  });
  expect(c.chatbot).toEqual({
    apiUrl: 'https://api.example.com',
    embedded: false,
    v1ApiUrl: 'https://api.example.com',
    secretKey: 'sec',
    sessionKey: 'ses',
    apiKey: 'api',
    chatbotId: 'bot-9',
  });
  expect(c.slack).toMatchObject({
    botToken: 'xoxb-1',
    appToken: 'xapp-1',
    mode: 'socket',
    adminUsers: ['U1', 'U2'],
    handoffChannel: 'C1',
  });
  expect(c.discord).toMatchObject({ token: 'dt', applicationId: '123', guildId: '456', adminRoles: ['R1', 'R2'] });
  expect(c.state).toEqual({ kind: 'redis', url: 'redis://127.0.0.1:6379/5' });
  expect(c).toMatchObject({
    port: 0,
    answerIdleTimeoutMs: 2500,
    handoffClaimTimeoutMs: 60000,
    handoffOnNoAnswer: true,
    logLevel: 'debug',
  });
});

test('Slack HTTP mode needs the signing secret; V1 URL can differ', () => {
  const c = loadConfig({
    SLACK_BOT_TOKEN: 'xoxb-1',
    SLACK_SIGNING_SECRET: 's',
    CHATBOT_API_URL: 'http://a',
    CHATBOT_V1_API_URL: 'http://b',
  });
  expect(c.slack?.mode).toBe('http');
  expect(c.chatbot.v1ApiUrl).toBe('http://b');
});

test('one error names every bad variable and what is expected', () => {
  const err = problemsOf({
    CHATBOT_API_URL: 'ftp://x',
    SLACK_APP_TOKEN: 'xoxb-wrong',
    SLACK_BOT_TOKEN: 'xoxb-1',
    PORT: '70000',
    STATE_URL: 'mysql://db',
    ANSWER_IDLE_TIMEOUT_S: '0',
    HANDOFF_ON_NO_ANSWER: 'maybe',
    LOG_LEVEL: 'loud',
    DISCORD_APPLICATION_ID: 'abc',
    DISCORD_TOKEN: 't',
  });
  const vars = err.problems.map((p) => p.variable);
  for (const v of [
    'CHATBOT_API_URL',
    'SLACK_APP_TOKEN',
    'PORT',
    'STATE_URL',
    'ANSWER_IDLE_TIMEOUT_S',
    'HANDOFF_ON_NO_ANSWER',
    'LOG_LEVEL',
    'DISCORD_APPLICATION_ID',
  ]) {
    expect(vars).toContain(v);
    expect(err.message).toContain(v);
  }
  expect(err.message).toMatch(/SLACK_APP_TOKEN: must be a Slack app-level token starting with xapp-/);
  expect(err.message).toMatch(/STATE_URL: must be sqlite:<path>/);
  expect(err.message).toMatch(/PORT: must be a port number from 0 to 65535/);
  expect(err.message).not.toContain('xoxb-wrong'); // values (maybe secrets) are never echoed
});

test('pairs: bot token without signing secret/app token; Discord token without application id', () => {
  const slack = problemsOf({ SLACK_BOT_TOKEN: 'xoxb-1' });
  expect(slack.message).toMatch(/SLACK_BOT_TOKEN.*SLACK_SIGNING_SECRET.*SLACK_APP_TOKEN/);
  const discord = problemsOf({ DISCORD_TOKEN: 't' });
  expect(discord.message).toMatch(/DISCORD_TOKEN.*DISCORD_APPLICATION_ID/);
  const orphan = problemsOf({ SLACK_SIGNING_SECRET: 's' });
  expect(orphan.problems[0].variable).toBe('SLACK_SIGNING_SECRET');
});

test('blank values count as unset', () => {
  expect(loadConfig({ PORT: '', SLACK_BOT_TOKEN: '  ', STATE_URL: '' })).toMatchObject({
    port: 3000,
    stateUrl: 'sqlite:./data/bridge.db',
  });
});

test('redactConfig hides every key, token and secret', () => {
  const c = loadConfig({
    CHATBOT_SECRET_KEY: 'sec-xyz',
    CHATBOT_SESSION_KEY: 'ses-xyz',
    CHATBOT_API_KEY: 'api-xyz',
    SLACK_BOT_TOKEN: 'xoxb-xyz',
    SLACK_SIGNING_SECRET: 'sign-xyz',
    SLACK_APP_TOKEN: 'xapp-xyz',
    DISCORD_TOKEN: 'disc-xyz',
    DISCORD_APPLICATION_ID: '1',
    CHATBOT_API_URL: 'embedded',
    STATE_URL: 'redis://:pw-xyz@127.0.0.1:6379/5',
  });
  const printed = JSON.stringify(redactConfig(c));
  expect(printed).not.toMatch(/xyz/);
  expect(redactConfig(c).chatbot.secretKey).toBe('***');
  expect(c.chatbot.secretKey).toBe('sec-xyz'); // the original is untouched
});

test('LINK_HOSTS: host names, lower-cased; a URL or a path is named as the problem', () => {
  expect(loadConfig({ LINK_HOSTS: ' Docs.Example.com, help.example.com ,' }).linkHosts).toEqual([
    'docs.example.com',
    'help.example.com',
  ]);
  const err = problems(() => loadConfig({ LINK_HOSTS: 'docs.example.com,https://evil.example/x' }));
  expect(err.problems.map((p) => p.variable)).toEqual(['LINK_HOSTS']);
  expect(err.message).toMatch(/LINK_HOSTS: "https:\/\/evil\.example\/x" is not a host name/);
});

test('.env.example documents every variable with a comment', () => {
  const text = readFileSync(path.join(__dirname, '..', '..', '.env.example'), 'utf8');
  const lines = text.split('\n');
  for (const v of CONFIG_VARIABLES) {
    const i = lines.findIndex((l) => l.startsWith(`${v}=`));
    expect(i).toBeGreaterThan(0);
    expect(lines[i - 1]).toMatch(/^# /);
  }
});

describe('CHATBOT_API_URL with a platform configured', () => {
  test('unset with Slack or Discord stops start-up with a message naming the variable', () => {
    for (const env of [
      { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' },
      { DISCORD_TOKEN: 'dt', DISCORD_APPLICATION_ID: '1' },
      { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', CHATBOT_API_URL: '  ' },
    ]) {
      const err = problems(() => loadConfig(env));
      expect(err.problems.map((p) => p.variable)).toEqual(['CHATBOT_API_URL']);
      expect(err.message).toMatch(/CHATBOT_API_URL: is not set/);
      expect(err.message).toMatch(/CHATBOT_API_URL=embedded/);
    }
  });

  test('CHATBOT_API_URL=embedded runs the embedded service on purpose', () => {
    const c = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', CHATBOT_API_URL: 'embedded' });
    expect(c.chatbot).toMatchObject({ apiUrl: undefined, v1ApiUrl: undefined, embedded: true });
    expect(
      loadConfig({ DISCORD_TOKEN: 'dt', DISCORD_APPLICATION_ID: '1', CHATBOT_API_URL: 'Embedded' }).chatbot.embedded,
    ).toBe(true);
  });

  test('neither platform: the shell runs on the embedded service as before', () => {
    const c = loadConfig({});
    expect(c.chatbot.embedded).toBe(true);
    expect(c.slack).toBeUndefined();
    expect(c.discord).toBeUndefined();
  });

  test('a URL is still checked, and the message says embedded is allowed', () => {
    const err = problems(() => loadConfig({ CHATBOT_API_URL: 'embeded' }));
    expect(err.problems[0]).toMatchObject({ variable: 'CHATBOT_API_URL' });
    expect(err.problems[0]!.message).toMatch(/embedded/);
  });
});

test("INSTANCE_LEASE_S: the lease a dead instance's work waits out, takeover within 10 s by default", () => {
  expect(loadConfig({ INSTANCE_LEASE_S: '2.5' }).leaseTtlMs).toBe(2500);
  // The default: lease plus one sweep (a third of it) is the takeover bound, inside the 10 s target.
  const timings = leaseTimings(loadConfig({}).leaseTtlMs);
  expect(takeoverBoundMs(timings)).toBeLessThanOrEqual(10_000);
  // A live instance renews every third of the lease: two renewals must miss before it is taken for dead.
  expect(timings.renewMs * 3).toBeLessThanOrEqual(timings.ttlMs);
  for (const bad of ['0', '0.5', '61', 'soon']) {
    const p = problems(() => loadConfig({ INSTANCE_LEASE_S: bad })).problems[0];
    expect(p).toMatchObject({ variable: 'INSTANCE_LEASE_S' });
    expect(p?.message).toContain('from 1 to 60');
  }
});

test('RETENTION_DAYS: days of inactivity before conversations expire (default 90)', () => {
  expect(loadConfig({ RETENTION_DAYS: '7' }).retentionDays).toBe(7);
  expect(problems(() => loadConfig({ RETENTION_DAYS: '0' })).problems[0]).toMatchObject({ variable: 'RETENTION_DAYS' });
  expect(problems(() => loadConfig({ RETENTION_DAYS: 'soon' })).problems[0]).toMatchObject({
    variable: 'RETENTION_DAYS',
  });
});
