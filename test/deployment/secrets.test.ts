/**
 * The deployment's secrets are one list (src/deployment/secrets.ts): every secret-looking variable of
 * the schema is on it, and each one on it is hidden by all three readers: the printed configuration,
 * the log scrubber (its value in any string) and the logger's redaction (its field name in an object).
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { configSecrets, loggerOptions } from '../../src/deployment/app-log';
import { CONFIG_VARIABLES, loadConfig } from '../../src/deployment/config';
import { redactConfig } from '../../src/deployment/config-redact';
import { safeLogger } from '../../src/deployment/log-safety';
import { DEPLOYMENT_SECRETS, DEPLOYMENT_SECRET_URLS } from '../../src/deployment/secrets';

const KEY = Buffer.alloc(32, 7).toString('base64');
const PREVIOUS = Buffer.alloc(32, 9).toString('base64');

const COMMON: Record<string, string> = {
  CHATBOT_API_URL: 'https://chatbot.example.com',
  CHATBOT_SECRET_KEY: 'sk-value-of-chatbot-secret',
  CHATBOT_SESSION_KEY: 'ssk-value-of-chatbot-session',
  CHATBOT_API_KEY: 'api-value-of-chatbot-v1',
  SLACK_SIGNING_SECRET: 'value-of-slack-signing',
  STATE_ENCRYPTION_KEY: KEY,
  STATE_ENCRYPTION_KEY_PREVIOUS: PREVIOUS,
  DISCORD_TOKEN: 'value-of-discord-token',
  DISCORD_APPLICATION_ID: '123456789',
  LLM_BASE_URL: 'http://127.0.0.1:9/v1',
  LLM_API_KEY: 'value-of-llm-api-key',
  STATE_URL: 'redis://bridge:value-of-redis-password@127.0.0.1:6379/3',
  SMTP_URL: 'smtp://mailer:value-of-smtp-password@smtp.example.com:587',
};
/** OAuth mode and token mode: between them, every secret variable is set, each to its own value. */
const MODES: Array<[string, Record<string, string>]> = [
  [
    'OAuth mode',
    {
      ...COMMON,
      SLACK_CLIENT_ID: '111.222',
      SLACK_CLIENT_SECRET: 'value-of-slack-client-secret',
      SLACK_STATE_SECRET: 'value-of-slack-state-secret',
    },
  ],
  ['token mode', { ...COMMON, SLACK_BOT_TOKEN: 'xoxb-value-of-bot-token', SLACK_APP_TOKEN: 'xapp-value-of-app-token' }],
];

/** The secret values of an environment: each secret variable's value, a URL's password. */
function secretsOf(env: Record<string, string>): string[] {
  const listed = [...DEPLOYMENT_SECRETS, ...DEPLOYMENT_SECRET_URLS].map((s) => s.variable);
  return Object.entries(env)
    .filter(([k]) => listed.includes(k))
    .map(([, v]) => (v.includes('://') ? (/:([^:@/]+)@/.exec(v)?.[1] ?? v) : v));
}

test('every variable of the schema that looks secret is on the one list', () => {
  const listed = new Set([...DEPLOYMENT_SECRETS, ...DEPLOYMENT_SECRET_URLS].map((s) => s.variable));
  const secretLooking = CONFIG_VARIABLES.filter((v) => /SECRET|TOKEN|_KEY|PASSWORD/.test(v));
  expect(secretLooking.filter((v) => !listed.has(v))).toEqual([]);
  for (const v of listed) expect(CONFIG_VARIABLES).toContain(v);
});

test.each(MODES)('%s: each secret is hidden when printed, scrubbed from strings, redacted by field name', (_m, env) => {
  const config = loadConfig(env);
  const secrets = secretsOf(env);
  expect(secrets.length).toBeGreaterThanOrEqual(12);
  const printed = JSON.stringify(redactConfig(config));
  const scrubber = configSecrets(config);
  for (const secret of secrets) {
    expect({ secret, printed: printed.includes(secret) }).toEqual({ secret, printed: false });
    const said = scrubber.text(`said ${secret} once`);
    expect({ secret, scrubbed: said.includes(secret) }).toEqual({ secret, scrubbed: false });
  }
  // The app's logger options over a buffer: the configuration logged raw, as a careless line would.
  const lines: string[] = [];
  const out = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log = safeLogger(pino(loggerOptions('info'), out), scrubber);
  log.info({ config }, 'configuration, unredacted by mistake');
  // Field names of the list hide values the scrubber never heard of (another tenant's, an old key).
  log.info({ chatbot: { secretKey: 'a-tenant-secret-key-1' }, previousKey: 'an-old-key-value-2' }, 'fields');
  const text = lines.join('');
  expect(text).toContain('configuration, unredacted by mistake');
  for (const secret of secrets) expect({ secret, logged: text.includes(secret) }).toEqual({ secret, logged: false });
  expect(text).not.toContain('a-tenant-secret-key-1');
  expect(text).not.toContain('an-old-key-value-2');
});
