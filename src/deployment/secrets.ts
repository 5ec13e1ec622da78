/**
 * The deployment's secrets, listed once. Three things read this list, so a new secret variable is
 * added here and nowhere else:
 * - the log scrubber (log-safety.ts) scrubs each one's value from every string of every log line;
 * - the logger's redaction censors each one's field name wherever it appears in a logged object;
 * - the printed configuration (config-redact.ts) shows each one as '***'.
 * `test/deployment/secrets.test.ts` checks every variable of the schema that looks secret is here.
 */
import type { Config } from './config';
import { redactedSmtpUrl } from './office-config';
import { redactRedisUrl } from '../state/redis-url';

const CENSOR = '***';

interface SecretValue {
  /** The environment variable it is read from. */
  variable: string;
  /** Where it sits in the Config. */
  path: readonly string[];
  /**
   * Whether its field name (the path's last part) is censored in any logged object: not for a name
   * as common as `key` (a store key is logged by that name and is no secret).
   */
  fieldIsSecret: boolean;
}

/** A URL that may carry a password: the password (and user) is the secret, the rest is useful to print. */
interface SecretUrl {
  variable: string;
  path: readonly string[];
  redact(url: string): string;
}

export const DEPLOYMENT_SECRETS: readonly SecretValue[] = [
  { variable: 'CHATBOT_SECRET_KEY', path: ['chatbot', 'secretKey'], fieldIsSecret: true },
  { variable: 'CHATBOT_SESSION_KEY', path: ['chatbot', 'sessionKey'], fieldIsSecret: true },
  { variable: 'CHATBOT_API_KEY', path: ['chatbot', 'apiKey'], fieldIsSecret: true },
  { variable: 'SLACK_BOT_TOKEN', path: ['slack', 'botToken'], fieldIsSecret: true },
  { variable: 'SLACK_SIGNING_SECRET', path: ['slack', 'signingSecret'], fieldIsSecret: true },
  { variable: 'SLACK_APP_TOKEN', path: ['slack', 'appToken'], fieldIsSecret: true },
  { variable: 'SLACK_CLIENT_SECRET', path: ['slack', 'oauth', 'clientSecret'], fieldIsSecret: true },
  { variable: 'SLACK_STATE_SECRET', path: ['slack', 'oauth', 'stateSecret'], fieldIsSecret: true },
  { variable: 'STATE_ENCRYPTION_KEY', path: ['encryption', 'key'], fieldIsSecret: false },
  { variable: 'STATE_ENCRYPTION_KEY_PREVIOUS', path: ['encryption', 'previousKey'], fieldIsSecret: true },
  { variable: 'DISCORD_TOKEN', path: ['discord', 'token'], fieldIsSecret: true },
  { variable: 'LLM_API_KEY', path: ['localLlm', 'apiKey'], fieldIsSecret: true },
];

export const DEPLOYMENT_SECRET_URLS: readonly SecretUrl[] = [
  { variable: 'STATE_URL', path: ['stateUrl'], redact: redactRedisUrl },
  { variable: 'STATE_URL', path: ['state', 'url'], redact: redactRedisUrl },
  { variable: 'SMTP_URL', path: ['mail', 'url'], redact: redactedSmtpUrl },
];

/**
 * Field names that hold a credential wherever they appear in a logged object: the deployment's own
 * (above), and those of the credentials the deployment holds for others (a workspace's OAuth tokens,
 * an HTTP request's header), which have no value to list.
 */
export const SECRET_FIELDS: readonly string[] = [
  ...new Set([
    ...DEPLOYMENT_SECRETS.filter((s) => s.fieldIsSecret).map((s) => s.path[s.path.length - 1] ?? ''),
    'token',
    'refreshToken',
    'authorization',
    'Authorization',
  ]),
];

function at(config: Config, path: readonly string[]): { parent: Record<string, unknown>; key: string } | undefined {
  let node: unknown = config;
  for (const part of path.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  const key = path[path.length - 1];
  if (node === null || typeof node !== 'object' || key === undefined) return undefined;
  return { parent: node as Record<string, unknown>, key };
}

function stringAt(config: Config, path: readonly string[]): string | undefined {
  const place = at(config, path);
  const v = place?.parent[place.key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The secret of a URL: its password, as written and decoded (its user is hidden when printed, but no secret). */
function urlSecrets(url: string): string[] {
  let password: string | undefined;
  try {
    password = new URL(url).password;
  } catch {
    // A Redis Cluster URL lists several hosts and is no WHATWG URL: the part between :// and @.
    password = /^[a-z+]+:\/\/[^:@/]*:([^@/]*)@/i.exec(url)?.[1];
  }
  if (!password) return [];
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // Not percent-encoded after all: as written is all there is.
  }
  return [...new Set([password, decoded])];
}

/** Every secret value the configuration holds (the scrubber's deployment-wide list). */
export function secretValues(config: Config): string[] {
  const values = DEPLOYMENT_SECRETS.map((s) => stringAt(config, s.path));
  for (const u of DEPLOYMENT_SECRET_URLS) {
    const url = stringAt(config, u.path);
    if (url) values.push(...urlSecrets(url));
  }
  return values.filter((v): v is string => v !== undefined && v !== '');
}

/** `config` (a copy the caller owns) with every listed secret replaced, in place. */
export function censorSecrets(config: Config): Config {
  for (const s of DEPLOYMENT_SECRETS) {
    const place = at(config, s.path);
    if (place && place.parent[place.key] !== undefined) place.parent[place.key] = CENSOR;
  }
  for (const u of DEPLOYMENT_SECRET_URLS) {
    const place = at(config, u.path);
    const url = place?.parent[place.key];
    if (place && typeof url === 'string' && url !== '') place.parent[place.key] = u.redact(url);
  }
  return config;
}
