/**
 * Which chatbot answers a tenant: the one its admins connected (`/chatbot connect`), else the
 * deployment's default (the CHATBOT_* environment), else none ("not connected"). Core asks this one
 * place with the request's tenant; every service call of that request then goes through the chosen
 * chatbot's own client.
 *
 * Clients are made on first use and kept per tenant with the connection's version stamp: a connect
 * or disconnect on any instance changes the stamp in the store, so the next request here makes a new
 * client (one small read per request, no cross-instance messages).
 */
import type { ChatbotClient } from '../../service/client';
import { type CheckErrors, type TellFailure, checkCredentials } from './check';
import type { ChatbotCredentials, Connection, TenantConnections } from './connections';
import { type Tenant, tenantKey } from './tenant';

/** The chatbot a request is answered by. */
export interface TenantChatbot {
  chatbotId: string;
  client: ChatbotClient;
  /** The tenant's own (connected), or the deployment's default. */
  connected: boolean;
  /** The tenant's handoff channel, when it set one. */
  handoffChannel?: string;
}

/** A client for a tenant's credentials (the service URLs are the deployment's). */
export type ClientFactory = (credentials: ChatbotCredentials) => ChatbotClient;

export interface DirectoryOptions {
  connections: TenantConnections;
  makeClient: ClientFactory;
  /** The environment's chatbot; absent: every tenant connects its own first. */
  fallback?: { chatbotId: string; client: ChatbotClient };
  /**
   * The tenant a place's tenant belongs to (a Slack workspace of an org-wide install: its
   * enterprise, so the whole org shares one connection); absent: itself.
   */
  canonical?: (t: Tenant) => Promise<Tenant>;
  /**
   * Told a tenant's keys once they are known good (they passed the live check, now or when they
   * were saved): the log scrubber learns them then, never from a string merely typed into the form.
   */
  trusted?: (credentials: ChatbotCredentials) => void;
}

/** The line a tenant without a chatbot gets, whatever it asked. */
export const NOT_CONNECTED =
  "This workspace isn't connected to a chatbot yet. An admin can connect it with /chatbot connect.";

export class ChatbotDirectory {
  readonly connections: TenantConnections;
  private readonly cache = new Map<string, { version: string; chatbot: TenantChatbot; credentials: Connection }>();

  constructor(private readonly opts: DirectoryOptions) {
    this.connections = opts.connections;
  }

  /** Whether tenants without a connection are served by the environment's chatbot. */
  get hasDefault(): boolean {
    return this.opts.fallback !== undefined;
  }

  /** The environment's chatbot, where it serves tenants that connected none. */
  get defaultChatbotId(): string | undefined {
    return this.opts.fallback?.chatbotId;
  }

  /**
   * Whose a connected chatbot is: the environment's chatbot connected by its keys is the operator's
   * (its office), any other the tenant's own.
   */
  connectedKind(chatbotId: string): 'own' | 'operator' {
    return chatbotId === this.defaultChatbotId ? 'operator' : 'own';
  }

  /** The tenant whose connection serves `t` (its enterprise, for a workspace of an org-wide install). */
  async canonical(t: Tenant): Promise<Tenant> {
    return this.opts.canonical ? this.opts.canonical(t) : t;
  }

  /**
   * The tenant's chatbot; undefined when it has none (not connected, no default). `canonical`: the
   * asked tenant's canonical one, when the caller read it already (its request's scope).
   */
  async forTenant(asked: Tenant, canonical?: Tenant): Promise<TenantChatbot | undefined> {
    const t = canonical ?? (await this.canonical(asked));
    const key = tenantKey(t);
    const version = await this.connections.version(t);
    if (version === undefined) {
      this.cache.delete(key);
      return this.defaultChatbot();
    }
    const hit = this.cache.get(key);
    if (hit && hit.version === version) {
      // In use: the scrubber keeps it among the most recent.
      this.opts.trusted?.(hit.credentials);
      return hit.chatbot;
    }
    const stored = await this.connections.get(t, { strict: true });
    if (!stored) return this.defaultChatbot();
    const chatbot = this.connected(stored.connection);
    this.cache.set(key, { version: stored.version, chatbot, credentials: stored.connection });
    return chatbot;
  }

  /** Credentials not saved yet, checked live (tenants/check.ts); passed, they are trusted. */
  async check(credentials: ChatbotCredentials, tell: TellFailure): Promise<CheckErrors> {
    const refused = await checkCredentials(this.opts.makeClient(credentials), credentials, tell);
    if (Object.keys(refused).length === 0) this.opts.trusted?.(credentials);
    return refused;
  }

  /** Forgets the tenant's cached client here (other instances see the new stamp). */
  forget(t: Tenant): void {
    this.cache.delete(tenantKey(t));
  }

  private connected(c: Connection): TenantChatbot {
    // Saved only after the live check: trusted.
    this.opts.trusted?.(c);
    const chatbot: TenantChatbot = { chatbotId: c.chatbotId, client: this.opts.makeClient(c), connected: true };
    if (c.handoffChannel) chatbot.handoffChannel = c.handoffChannel;
    return chatbot;
  }

  private defaultChatbot(): TenantChatbot | undefined {
    const fallback = this.opts.fallback;
    return fallback ? { ...fallback, connected: false } : undefined;
  }
}
