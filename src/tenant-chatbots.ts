/**
 * Wiring of each tenant's chatbot (core/tenants/): the sealed connections in the state store, a
 * client per connected tenant on the deployment's service URLs, and the environment's chatbot as the
 * default. A tenant's keys are taught to the log scrubber once they passed the live check (when
 * connected, or read back saved): a string typed into the form that the service refused is not.
 */
import type { Logger } from 'pino';
import type { Config } from './deployment/config';
import type { SecretScrubber } from './deployment/log-safety';
import { ChatbotClient } from './service/client';
import { SecretBox, parseEncryptionKey } from './state/secret-box';
import type { StateStore } from './state/store';
import { TenantConnections } from './core/tenants/connections';
import { ChatbotDirectory } from './core/tenants/directory';
import type { Tenant } from './core/tenants/tenant';
import { enterpriseOfTeam } from './surfaces/slack/oauth/tokens';

/** The state key, when configured (without one nothing can be connected: connect says so). */
function optionalBox(config: Config): SecretBox | undefined {
  if (!config.encryption) return undefined;
  const { key, previousKey } = config.encryption;
  return new SecretBox(
    parseEncryptionKey('STATE_ENCRYPTION_KEY', key),
    previousKey ? parseEncryptionKey('STATE_ENCRYPTION_KEY_PREVIOUS', previousKey) : undefined,
  );
}

/**
 * Whether tenants that connected nothing are served by the environment's chatbot: yes, unless a
 * deployment that many workspaces install (Slack OAuth) names a chatbot service but no secret key
 * for it; then every tenant connects its own first. The two-command quick start keeps its default.
 */
export function hasDefaultChatbot(config: Config): boolean {
  return !(config.slack?.oauth && config.chatbot.apiUrl && !config.chatbot.secretKey);
}

export interface TenantChatbotsOptions {
  config: Config;
  /** The chatbot settings as started (the embedded service's URL when CHATBOT_API_URL is unset). */
  chatbot: Config['chatbot'];
  client: ChatbotClient;
  store: StateStore;
  scrubber: SecretScrubber;
  timeoutMs?: number;
  /** The bridge's clock (core's). */
  now: () => number;
  /** Where a connection record no key opens is reported (once, by name). */
  log?: Pick<Logger, 'error'>;
}

/** Slack OAuth mode: a workspace of an org-wide install is its enterprise's tenant (one connection for the org). */
function orgTenants(config: Config, store: StateStore): ((t: Tenant) => Promise<Tenant>) | undefined {
  if (!config.slack?.oauth) return undefined;
  return async (t) => {
    const enterprise = t.surface === 'slack' ? await enterpriseOfTeam(store, t.id) : undefined;
    return enterprise ? { surface: 'slack', id: enterprise } : t;
  };
}

export function tenantChatbots(o: TenantChatbotsOptions): ChatbotDirectory {
  const baseUrl = o.chatbot.apiUrl ?? '';
  const makeClient = (c: { secretKey: string; sessionKey: string; apiKey?: string }): ChatbotClient => {
    return new ChatbotClient({
      baseUrl,
      v1BaseUrl: o.chatbot.v1ApiUrl ?? baseUrl,
      secretKey: c.secretKey,
      sessionKey: c.sessionKey,
      apiKey: c.apiKey,
      idleTimeoutMs: o.config.answerIdleTimeoutMs,
      timeoutMs: o.timeoutMs,
    });
  };
  const canonical = orgTenants(o.config, o.store);
  return new ChatbotDirectory({
    connections: new TenantConnections(o.store, optionalBox(o.config), o.now, o.log),
    makeClient,
    ...(canonical ? { canonical } : {}),
    trusted: (c) => o.scrubber.learn(c.secretKey, c.sessionKey, c.apiKey),
    ...(hasDefaultChatbot(o.config) ? { fallback: { chatbotId: o.chatbot.chatbotId, client: o.client } } : {}),
  });
}
