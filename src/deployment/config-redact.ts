/** The configuration as it may be printed: every key, token, signing secret and password hidden. */
import type { Config } from './config';
import { redactedSmtpUrl } from './office-config';
import { redactRedisUrl } from '../state/redis-url';

const SECRET_PATHS: Array<[keyof Config, string]> = [
  ['chatbot', 'secretKey'],
  ['chatbot', 'sessionKey'],
  ['chatbot', 'apiKey'],
  ['slack', 'botToken'],
  ['slack', 'signingSecret'],
  ['slack', 'appToken'],
  ['encryption', 'key'],
  ['encryption', 'previousKey'],
  ['discord', 'token'],
  ['localLlm', 'apiKey'],
];

/** A printable copy: every key, token and signing secret replaced by '***'. */
export function redactConfig(config: Config): Config {
  const copy = structuredClone(config);
  for (const [section, key] of SECRET_PATHS) {
    const part = copy[section] as Record<string, unknown> | undefined;
    if (part && part[key] !== undefined) part[key] = '***';
  }
  // A redis URL may carry a password.
  if (copy.state.kind === 'redis') {
    copy.state = { kind: 'redis', url: redactRedisUrl(copy.state.url) };
    copy.stateUrl = copy.state.url;
  }
  if (copy.mail) copy.mail = { ...copy.mail, url: redactedSmtpUrl(copy.mail.url) };
  if (copy.slack?.oauth) copy.slack.oauth = { ...copy.slack.oauth, clientSecret: '***', stateSecret: '***' };
  return copy;
}
