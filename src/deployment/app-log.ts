/** The app's logger and the secrets of its configuration that every log line is scrubbed of. */
import { mkdirSync } from 'fs';
import { dirname, resolve } from 'path';
import pino, { type Logger } from 'pino';
import type { Config } from './config';
import { SecretScrubber } from './log-safety';

/** Every secret value of the configuration: scrubbed from every log line (see log-safety.ts). */
export function configSecrets(config: Config): SecretScrubber {
  return new SecretScrubber([
    config.chatbot.secretKey,
    config.chatbot.sessionKey,
    config.chatbot.apiKey,
    config.slack?.botToken,
    config.slack?.signingSecret,
    config.slack?.appToken,
    config.slack?.oauth?.clientSecret,
    config.slack?.oauth?.stateSecret,
    config.encryption?.key,
    config.encryption?.previousKey,
    config.discord?.token,
    config.localLlm?.apiKey,
  ]);
}

/** The app's logger: pino with secret paths redacted; startApp makes it (or a caller's) safe at any depth. */
export function createLogger(level: string, destination?: string): Logger {
  const options = {
    level,
    redact: {
      paths: [
        '*.token',
        '*.botToken',
        '*.secretKey',
        '*.sessionKey',
        '*.apiKey',
        '*.signingSecret',
        '*.appToken',
        '*.clientSecret',
        '*.stateSecret',
        '*.refreshToken',
        '*.authorization',
        '*.Authorization',
        'headers.authorization',
      ],
      censor: '***',
    },
  };
  if (destination) {
    mkdirSync(dirname(resolve(destination)), { recursive: true });
    // Synchronous: the file is open before the first line, so a quick exit (empty piped input)
    // cannot hit pino's exit flush on a stream that is not ready yet.
    return pino(options, pino.destination({ dest: destination, sync: true, mkdir: true }));
  }
  return pino(options, pino.destination(2));
}
