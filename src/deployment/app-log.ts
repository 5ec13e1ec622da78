/** The app's logger and the secrets of its configuration that every log line is scrubbed of. */
import { mkdirSync } from 'fs';
import { dirname, resolve } from 'path';
import pino, { type Logger, type LoggerOptions } from 'pino';
import type { Config } from './config';
import { SecretScrubber } from './log-safety';
import { SECRET_FIELDS, secretValues } from './secrets';

/** The deployment's secrets (secrets.ts's one list): scrubbed from every log line (see log-safety.ts). */
export function configSecrets(config: Config): SecretScrubber {
  return new SecretScrubber(secretValues(config));
}

/** The app logger's options: each secret's field name (secrets.ts's one list) redacted. */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: {
      // At the first level; the scrubber (log-safety.ts) does every depth.
      paths: [...SECRET_FIELDS.map((f) => `*.${f}`), 'headers.authorization'],
      censor: '***',
    },
  };
}

/** The app's logger: pino with secret paths redacted; startApp makes it (or a caller's) safe at any depth. */
export function createLogger(level: string, destination?: string): Logger {
  const options = loggerOptions(level);
  if (destination) {
    mkdirSync(dirname(resolve(destination)), { recursive: true });
    // Synchronous: the file is open before the first line, so a quick exit (empty piped input)
    // cannot hit pino's exit flush on a stream that is not ready yet.
    return pino(options, pino.destination({ dest: destination, sync: true, mkdir: true }));
  }
  return pino(options, pino.destination(2));
}
