/** The configuration as it may be printed: every secret of secrets.ts's one list hidden. */
import type { Config } from './config';
import { censorSecrets } from './secrets';

/** A printable copy: every key, token, signing secret and URL password replaced by '***'. */
export function redactConfig(config: Config): Config {
  return censorSecrets(structuredClone(config));
}
