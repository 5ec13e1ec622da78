/**
 * A tenant's own chatbot, as `/chatbot connect` saved it: the chatbot id, its service keys and its
 * handoff channel. The whole record is sealed (AES-256-GCM, STATE_ENCRYPTION_KEY: state/secret-box.ts)
 * before it reaches the store, so the store holds no key in clear; only its version stamp is plain,
 * which lets every instance tell that its cached client is stale (ChatbotDirectory).
 *
 * The small, stable API other parts use: `connectionOf(ctx, tenant)`, and `TenantConnections` itself.
 */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { StateStore } from '../../state/store';
import { type Tenant, tenantKey } from './tenant';

/** What `/chatbot connect` asks for: the chatbot and its keys for the service's two API families. */
export interface ChatbotCredentials {
  chatbotId: string;
  secretKey: string;
  sessionKey: string;
  /** The /v1 key (settings, analytics, history); optional. */
  apiKey?: string;
}

export interface Connection extends ChatbotCredentials {
  /** The tenant's handoff channel (on the tenant's own surface and workspace). */
  handoffChannel?: string;
  /** Who connected it, and when (epoch ms). */
  connectedBy: string;
  connectedAt: number;
}

/** What seals and opens a record (SecretBox). */
export interface Sealer {
  seal(plain: string): string;
  open(sealed: string): { plain: string; stale: boolean };
}

const connectionSchema = z.object({
  chatbotId: z.string().min(1),
  secretKey: z.string().min(1),
  sessionKey: z.string().min(1),
  apiKey: z.string().min(1).optional(),
  handoffChannel: z.string().min(1).optional(),
  connectedBy: z.string(),
  connectedAt: z.number(),
});

const storedSchema = z.object({
  version: z.string(),
  sealed: z.string(),
  writtenAt: z.number().default(0),
  /**
   * A digest of the chatbot id (`chatbotTag`; the id itself stays sealed), so a tenant that leaves can
   * tell which chatbot's records are its own without the sealing key (forget.ts).
   */
  chatbotTag: z.string().optional(),
});

/** A record read this long after its last write is written again: the store's retention counts from writes. */
const TOUCH_MS = 24 * 60 * 60 * 1000;

/** A connection read back, with the stamp that changes on every connect and disconnect. */
export interface StoredConnection {
  connection: Connection;
  version: string;
}

export const CONNECTION_PREFIX = 'tenant:connection:';

function keyOf(t: Tenant): string {
  return `${CONNECTION_PREFIX}${tenantKey(t)}`;
}

export class TenantConnections {
  constructor(
    private readonly store: StateStore,
    /** Absent: STATE_ENCRYPTION_KEY is not configured, so nothing can be saved (connect says so). */
    private readonly box: Sealer | undefined,
    /** The bridge's clock (epoch ms). */
    private readonly now: () => number,
  ) {}

  /** Whether connections can be saved (there is a key to seal them with). */
  get canSave(): boolean {
    return this.box !== undefined;
  }

  async get(t: Tenant): Promise<StoredConnection | undefined> {
    const stored = storedSchema.safeParse(await this.store.get(keyOf(t)));
    if (!stored.success || !this.box) return undefined;
    const opened = this.box.open(stored.data.sealed);
    const connection = connectionSchema.safeParse(JSON.parse(opened.plain));
    if (!connection.success) return undefined;
    // Sealed with the previous key: written back under the current one, as it is read.
    if (opened.stale) await this.write(t, connection.data, stored.data.version);
    return { connection: connection.data, version: stored.data.version };
  }

  /**
   * Just the stamp: one cheap read tells an instance whether its cached client still holds. A tenant
   * in use keeps its record: written again (as it is) at most once a day, so RETENTION_DAYS counts
   * from its last use, not from the day it was connected.
   */
  async version(t: Tenant): Promise<string | undefined> {
    const stored = storedSchema.safeParse(await this.store.get(keyOf(t)));
    if (!stored.success) return undefined;
    if (this.now() - stored.data.writtenAt > TOUCH_MS) {
      await this.store.set(keyOf(t), { ...stored.data, writtenAt: this.now() });
    }
    return stored.data.version;
  }

  async put(t: Tenant, connection: Connection): Promise<void> {
    await this.write(t, connection, randomBytes(8).toString('hex'));
  }

  /** Whether there was one to remove. */
  async remove(t: Tenant): Promise<boolean> {
    const had = (await this.store.get(keyOf(t))) !== undefined;
    await this.store.delete(keyOf(t));
    return had;
  }

  private async write(t: Tenant, connection: Connection, version: string): Promise<void> {
    if (!this.box) throw new Error('STATE_ENCRYPTION_KEY is not set: tenant credentials cannot be saved');
    const sealed = this.box.seal(JSON.stringify(connectionSchema.parse(connection)));
    const chatbotTag = chatbotTagOf(connection.chatbotId);
    await this.store.set(keyOf(t), { version, sealed, writtenAt: this.now(), chatbotTag });
  }
}

/** What a connection keeps in plain of its chatbot: a digest of the id, enough to tell two alike. */
export function chatbotTagOf(chatbotId: string): string {
  return createHash('sha256').update(`chatbot:${chatbotId}`).digest('base64url').slice(0, 22);
}

/**
 * The chatbot (its tag) each connected tenant named, by the connection's key, read without opening
 * the seal (a connection saved before tags were kept names none).
 */
export async function connectedChatbots(store: StateStore): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const key of await store.keys(CONNECTION_PREFIX)) {
    const stored = storedSchema.safeParse(await store.get(key));
    if (stored.success && stored.data.chatbotTag) out.set(key, stored.data.chatbotTag);
  }
  return out;
}

/** The key a tenant's connection is kept under. */
export function connectionKey(t: Tenant): string {
  return keyOf(t);
}

/**
 * The tenant's saved connection, or undefined (not connected, or no directory in this context).
 * `ctx` is core's context, typed by shape: this module stays below context.ts.
 */
export async function connectionOf(
  ctx: { chatbots?: { connections: TenantConnections; canonical(t: Tenant): Promise<Tenant> } },
  tenant: Tenant,
): Promise<Connection | undefined> {
  const directory = ctx.chatbots;
  return directory ? (await directory.connections.get(await directory.canonical(tenant)))?.connection : undefined;
}
