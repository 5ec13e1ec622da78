/**
 * The bridge with no surface and no HTTP server, its local chatbot service in memory: what a test
 * starts to see the app itself open its state (a Redis over TLS, a cluster, a model backend) or
 * refuse to.
 */
import { createLogger } from '../../src/deployment/app-log';
import { type AppHandle, startApp } from '../../src/app';
import { type Config, loadConfig } from '../../src/deployment/config';

/** The configuration of `env`, with an in-memory service database and silent logs. */
export function bareConfig(env: Record<string, string>): Config {
  return loadConfig({ SERVICE_DB: ':memory:', LOG_LEVEL: 'silent', ...env });
}

/** Starts the bridge of `config` with no surface and no HTTP server. */
export function startBareApp(config: Config): Promise<AppHandle> {
  return startApp(config, { surfaces: [], http: false, localServiceDb: ':memory:', log: createLogger('silent') });
}
