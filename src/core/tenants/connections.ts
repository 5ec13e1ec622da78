/**
 * A tenant's own chatbot, as `/chatbot connect` saved it: the chatbot id, its service keys and its
 * handoff channel. The whole record is sealed (AES-256-GCM, STATE_ENCRYPTION_KEY: state/secret-box.ts)
 * before it reaches the store, so the store holds no key in clear; only its version stamp is plain,
 * which lets every instance tell that its cached client is stale (ChatbotDirectory).
 *
 * The small, stable API other parts use: `connectionOf(ctx, tenant)`, and `TenantConnections` itself.
 */
import { readOld } from '../../state/old-layout';
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Logger } from 'pino';
import type { Json, StateStore } from '../../state/store';
import { scoped, tenantPrefix, tenantStore } from '../../state/tenant-store';
import { reportUnreadable, UnreadableRecord } from '../../state/unreadable';
import { updateVersioned } from '../../state/versioned';
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
  /** Raised by every write (state/versioned.ts); a record of before versions held its stamp here. */
  version: z.union([z.string(), z.number()]),
  /**
   * Random, new on every connect: caches compare it (ChatbotDirectory). Unlike the version it never
   * repeats after a disconnect and a new connect.
   */
  stamp: z.string().optional(),
  sealed: z.string(),
  writtenAt: z.number().default(0),
  /**
   * A digest of the chatbot id (`chatbotTag`; the id itself stays sealed), so a tenant that leaves can
   * tell which chatbot's records are its own without the sealing key (forget.ts).
   */
  chatbotTag: z.string().optional(),
});

const stampOf = (stored: z.infer<typeof storedSchema>): string => stored.stamp ?? String(stored.version);

/** A record in use is kept alive (its time to live renewed, nothing written) at most this often. */
const TOUCH_MS = 24 * 60 * 60 * 1000;

/** A connection read back, with the stamp that changes on every connect and disconnect. */
export interface StoredConnection {
  connection: Connection;
  version: string;
}

/** Where a tenant's connection lives: in its own part of the store (`t:<kind>:<id>:connection`). */
const CONNECTION_KEY = scoped('connection');
/** Where it lived before tenants had their own parts; read, and moved, on the first read after an upgrade. */
const LEGACY_CONNECTION_PREFIX = 'tenant:connection:';
const legacyKeyOf = (t: Tenant): string => `${LEGACY_CONNECTION_PREFIX}${tenantKey(t)}`;

/**
 * Which tenants' connections name a chatbot, by its tag (global: `chatbot-tenant:<tag>:<tenant>`, one
 * small key each): a tenant that leaves learns whether another still uses its chatbot with one listing
 * of that chatbot's entries, never by reading every tenant's part.
 */
const CHATBOT_TENANTS_PREFIX = 'chatbot-tenant:';
const chatbotTenantsPrefix = (tag: string): string => `${CHATBOT_TENANTS_PREFIX}${tag}:`;
const chatbotTenantKey = (tag: string, t: Tenant): string =>
  `${chatbotTenantsPrefix(tag)}${encodeURIComponent(t.surface)}:${encodeURIComponent(t.id)}`;

export class TenantConnections {
  constructor(
    private readonly store: StateStore,
    /** Absent: STATE_ENCRYPTION_KEY is not configured, so nothing can be saved (connect says so). */
    private readonly box: Sealer | undefined,
    /** The bridge's clock (epoch ms). */
    private readonly now: () => number,
    /** Where a record no key opens is reported (once). */
    private readonly log?: Pick<Logger, 'error'>,
  ) {}

  /** Whether connections can be saved (there is a key to seal them with). */
  get canSave(): boolean {
    return this.box !== undefined;
  }

  /**
   * The tenant's connection; undefined when it has none, or when its record opens with no key (logged
   * once by name, and skipped: every sweep goes on; `strict` (a request's chatbot) throws instead,
   * so the request is told by reference rather than answered by the deployment's chatbot).
   * Reading writes nothing back: a record sealed with STATE_ENCRYPTION_KEY_PREVIOUS stays so until
   * `npm run rotate-key`.
   */
  async get(t: Tenant, opts: { strict?: boolean } = {}): Promise<StoredConnection | undefined> {
    const stored = storedSchema.safeParse(await this.raw(t));
    if (!stored.success || !this.box) return undefined;
    let plain: string;
    try {
      plain = this.box.open(stored.data.sealed).plain;
    } catch (err) {
      const unreadable = new UnreadableRecord(connectionKey(t), err);
      reportUnreadable(this.log, unreadable);
      // A request of the tenant must not be answered by another chatbot than the one it connected.
      if (opts.strict) throw unreadable;
      return undefined;
    }
    const connection = connectionSchema.safeParse(JSON.parse(plain));
    if (!connection.success) return undefined;
    return { connection: connection.data, version: stampOf(stored.data) };
  }

  /**
   * Just the stamp: one cheap read tells an instance whether its cached client still holds. A tenant
   * in use keeps its record: its time to live is renewed at most once a day (no value written), so
   * RETENTION_DAYS counts from its last use, not from the day it was connected.
   */
  async version(t: Tenant): Promise<string | undefined> {
    const stored = storedSchema.safeParse(await this.raw(t));
    if (!stored.success) return undefined;
    if (this.now() - stored.data.writtenAt > TOUCH_MS) {
      await this.view(t).touch(CONNECTION_KEY);
      if (stored.data.chatbotTag) await this.store.touch(chatbotTenantKey(stored.data.chatbotTag, t));
    }
    return stampOf(stored.data);
  }

  /** A connect: the newest state, written over whatever version is there (compare-and-set). */
  async put(t: Tenant, connection: Connection): Promise<void> {
    if (!this.box) throw new Error('STATE_ENCRYPTION_KEY is not set: tenant credentials cannot be saved');
    const sealed = this.box.seal(JSON.stringify(connectionSchema.parse(connection)));
    const chatbotTag = chatbotTagOf(connection.chatbotId);
    await this.raw(t);
    let before: string | undefined;
    await updateVersioned(this.view(t), CONNECTION_KEY, (current) => {
      const old = storedSchema.safeParse(current);
      before = old.success ? old.data.chatbotTag : undefined;
      return { stamp: randomBytes(8).toString('hex'), sealed, writtenAt: this.now(), chatbotTag };
    });
    // Listed under its chatbot before the old entry goes: a tenant is never missing from both.
    await this.store.set(chatbotTenantKey(chatbotTag, t), true);
    if (before && before !== chatbotTag) await this.store.delete(chatbotTenantKey(before, t));
  }

  /** Whether there was one to remove. */
  async remove(t: Tenant): Promise<boolean> {
    const stored = storedSchema.safeParse(await this.raw(t));
    await this.view(t).delete(CONNECTION_KEY);
    if (stored.success && stored.data.chatbotTag) await this.store.delete(chatbotTenantKey(stored.data.chatbotTag, t));
    return stored.success;
  }

  private view(t: Tenant) {
    return tenantStore(this.store, t);
  }

  /**
   * The record as stored, in the tenant's part; one still at its key of before is moved there first
   * (an upgrade loses no connection), and listed under its chatbot.
   */
  private async raw(t: Tenant): Promise<Json | undefined> {
    const view = this.view(t);
    const current = await view.get(CONNECTION_KEY);
    if (current !== undefined) return current;
    const legacy = await readOld(this.store, legacyKeyOf(t));
    if (legacy === undefined) return undefined;
    await view.setIfAbsent(CONNECTION_KEY, legacy);
    const tag = storedSchema.safeParse(legacy);
    if (tag.success && tag.data.chatbotTag) await this.store.set(chatbotTenantKey(tag.data.chatbotTag, t), true);
    await this.store.delete(legacyKeyOf(t));
    return view.get(CONNECTION_KEY);
  }
}

/** What a connection keeps in plain of its chatbot: a digest of the id, enough to tell two alike. */
export function chatbotTagOf(chatbotId: string): string {
  return createHash('sha256').update(`chatbot:${chatbotId}`).digest('base64url').slice(0, 22);
}

/** The tag of the chatbot the tenant's connection names (read without opening the seal), if any. */
export async function connectedChatbotTag(store: StateStore, t: Tenant): Promise<string | undefined> {
  const stored = storedSchema.safeParse(
    (await tenantStore(store, t).get(CONNECTION_KEY)) ?? (await readOld(store, legacyKeyOf(t))),
  );
  return stored.success ? stored.data.chatbotTag : undefined;
}

/**
 * Whether a tenant other than `t` has a connection naming the chatbot tagged `tag`: its index entries,
 * and connections still at their keys of before an upgrade (listed once; there are none once read).
 */
export async function chatbotUsedByOthers(store: StateStore, tag: string, t: Tenant): Promise<boolean> {
  const own = chatbotTenantKey(tag, t);
  const prefix = chatbotTenantsPrefix(tag);
  for (const key of await store.keys(prefix)) {
    if (key === own) continue;
    const [surface = '', id = ''] = key.slice(prefix.length).split(':').map(decodeURIComponent);
    // An entry is trusted only while that tenant's connection still names the chatbot.
    if ((await connectedChatbotTag(store, { surface, id } as Tenant)) === tag) return true;
  }
  for (const key of await store.keys(LEGACY_CONNECTION_PREFIX)) {
    if (key === legacyKeyOf(t)) continue;
    const stored = storedSchema.safeParse(await store.get(key));
    if (stored.success && stored.data.chatbotTag === tag) return true;
  }
  return false;
}

/** The global keys of a tenant's connection: its chatbot's index entry and its record of before. */
export function connectionGlobalKeys(t: Tenant, tag: string | undefined): string[] {
  return [legacyKeyOf(t), ...(tag ? [chatbotTenantKey(tag, t)] : [])];
}

/** The full store key of a tenant's connection (in its part of the store). */
export function connectionKey(t: Tenant): string {
  return `${tenantPrefix(t)}${CONNECTION_KEY}`;
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
