/**
 * One tenant's part of the state store: a Slack workspace (or enterprise), a Discord server, or the
 * shell. Every key of a tenant lives under `t:<kind>:<id>:`, and the only way to reach it is a
 * `TenantStore`, a view bound to one tenant whose methods take keys relative to it (`ScopedKey`).
 * A relative key is a branded type made by `scoped()`: a raw store key (a string) is refused by the
 * compiler, so a key of one tenant cannot be read through another's view: the view adds its own
 * prefix to whatever it is given, and lists only its own keys.
 *
 * What a tenant keeps here: its conversations and everything per conversation (the record, its chat
 * session and the chatbot it was opened with, transcript, handoff mark, lead facts, crash marks,
 * askers), its queues of work (`push`/`peek`/`ack`/`length` below), Retry records, dedupe marks,
 * recent conversations, votes, ticket indexes, its connection and office record, agent roster and
 * limits, and the surfaces' own records of it (surfaces/slack/records.ts, surfaces/discord/records.ts).
 *
 * What stays on the raw store instead is listed in one place, with the reason for each family:
 * global-keys.ts (leases, the sweeps' indexes, answers in flight, tickets, outboxes, installations...).
 */
import type { FencedWrite, Json, OutboxIntent, QueueItem, RateDecision, StateStore } from './store';

export const TENANT_KINDS = ['slack', 'discord', 'shell'] as const;
export type TenantKind = (typeof TENANT_KINDS)[number];

declare const tenantPrefixBrand: unique symbol;
declare const scopedKeyBrand: unique symbol;

/** `t:<kind>:<id>:`: the start of every key of one tenant (its parts encoded, so no id is a prefix of another's). */
export type TenantPrefix = string & { readonly [tenantPrefixBrand]: true };

/** The same shape as core's request tenant: a surface and its workspace there. */
export interface Tenant {
  readonly surface: TenantKind;
  /** Slack team (or enterprise) id, Discord guild id ('@me' for DMs), 'local' for the shell. */
  readonly id: string;
}

declare const requestTenantBrand: unique symbol;

/**
 * The tenant a request comes from, decided once by the surface from the platform's authorization
 * (Slack: the workspace Bolt's `authorize` served; Discord: the interaction's or message's guild, a
 * DM's own; the shell) and carried on the request (`BridgeRequest.tenant`): core reads it from there,
 * never from a place. Made only by core's `requestTenant` (core/tenants/tenant.ts), which refuses an
 * empty id: a request without a tenant is a type error (a plain `Tenant` is not one), not a value.
 */
export type RequestTenant = Tenant & { readonly [requestTenantBrand]: true };

/** A key relative to one tenant: what a TenantStore takes and lists. Made only by `scoped`. */
export type ScopedKey = string & { readonly [scopedKeyBrand]: true };

export function tenantFor(surface: TenantKind, id: string): Tenant {
  if (!TENANT_KINDS.includes(surface))
    throw new Error(`tenant surface: "${surface}" is not one of ${TENANT_KINDS.join(', ')}`);
  return { surface, id };
}

export function tenantPrefix(t: Tenant): TenantPrefix {
  return `t:${t.surface}:${encodeURIComponent(t.id)}:` as TenantPrefix;
}

export function sameTenant(a: Tenant, b: Tenant): boolean {
  return a.surface === b.surface && a.id === b.id;
}

/** A relative key from its parts, each encoded (`scoped('ticket', id)` → `ticket:<id>`). */
export function scoped(...parts: string[]): ScopedKey {
  if (parts.length === 0) throw new Error('scoped: give at least one key part');
  return parts.map(encodeURIComponent).join(':') as ScopedKey;
}

/** A prefix to list with `keys`: the parts and a trailing separator (`scopedPrefix('ticket')` → `ticket:`). */
export function scopedPrefix(...parts: string[]): ScopedKey {
  return `${scoped(...parts)}:` as ScopedKey;
}

/** The store's key-value, listing, queue and rate primitives, bound to one tenant. */
export interface TenantStore {
  readonly tenant: Tenant;
  get<T extends Json = Json>(key: ScopedKey): Promise<T | undefined>;
  set(key: ScopedKey, value: Json, ttlMs?: number): Promise<void>;
  delete(key: ScopedKey): Promise<void>;
  touch(key: ScopedKey, ttlMs?: number): Promise<boolean>;
  setIfAbsent(key: ScopedKey, value: Json, ttlMs?: number): Promise<boolean>;
  compareAndSet(key: ScopedKey, expected: Json | undefined, next: Json, ttlMs?: number): Promise<boolean>;
  /** compareAndSet on the tenant's key, with intents joining a global outbox (`box`) in the same step. */
  compareAndSetWithIntents(
    key: ScopedKey,
    expected: Json | undefined,
    next: Json,
    ttlMs: number | undefined,
    box: string,
    intents: OutboxIntent[],
  ): Promise<boolean>;
  /** The tenant's keys under `prefix`, relative (the tenant's prefix taken off). */
  keys(prefix: ScopedKey): Promise<ScopedKey[]>;
  takeToken(key: ScopedKey, limit: number, windowMs: number): Promise<RateDecision>;
  /** The store's ordered queues (FIFO per queue), named relative to the tenant. */
  push(queue: ScopedKey, value: Json): Promise<QueueItem>;
  peek<T extends Json = Json>(queue: ScopedKey): Promise<QueueItem<T> | undefined>;
  ack(queue: ScopedKey, id: string): Promise<boolean>;
  length(queue: ScopedKey): Promise<number>;
  /** The writes above as one of a fenced batch (`StateStore.writeFenced`), on the tenant's keys. */
  setWrite(key: ScopedKey, value: Json, ttlMs?: number): FencedWrite;
  deleteWrite(key: ScopedKey): FencedWrite;
  ackWrite(queue: ScopedKey, id: string): FencedWrite;
}

export function tenantStore(store: StateStore, tenant: Tenant): TenantStore {
  const prefix = tenantPrefix(tenant);
  const full = (key: ScopedKey): string => `${prefix}${key}`;
  return {
    tenant,
    get: (key) => store.get(full(key)),
    set: (key, value, ttlMs) => store.set(full(key), value, ttlMs),
    delete: (key) => store.delete(full(key)),
    touch: (key, ttlMs) => store.touch(full(key), ttlMs),
    setIfAbsent: (key, value, ttlMs) => store.setIfAbsent(full(key), value, ttlMs),
    compareAndSet: (key, expected, next, ttlMs) => store.compareAndSet(full(key), expected, next, ttlMs),
    compareAndSetWithIntents: (key, expected, next, ttlMs, box, intents) =>
      store.compareAndSetWithIntents(full(key), expected, next, ttlMs, box, intents),
    keys: async (under) => (await store.keys(full(under))).map((k) => k.slice(prefix.length) as ScopedKey),
    takeToken: (key, limit, windowMs) => store.takeToken(full(key), limit, windowMs),
    push: (queue, value) => store.push(full(queue), value),
    peek: (queue) => store.peek(full(queue)),
    ack: (queue, id) => store.ack(full(queue), id),
    length: (queue) => store.length(full(queue)),
    setWrite: (key, value, ttlMs) => ({ op: 'set', key: full(key), value, ...(ttlMs !== undefined ? { ttlMs } : {}) }),
    deleteWrite: (key) => ({ op: 'delete', key: full(key) }),
    ackWrite: (queue, id) => ({ op: 'ack', queue: full(queue), id }),
  };
}

/**
 * Deletes every key under the tenant's prefix (a workspace uninstalls, a server removes the bot);
 * other tenants' keys and the global ones are untouched. Returns how many keys went. Core's
 * `forgetTenant` (core/tenants/forget.ts) calls it, then finds the records still kept outside.
 * Queues are not keys: the caller empties them first (it knows their names). Rate logs are not
 * listed by the store and empty themselves within their window.
 */
export async function forgetTenantKeys(store: StateStore, tenant: Tenant): Promise<number> {
  const doomed = await store.keys(tenantPrefix(tenant));
  for (const key of doomed) await store.delete(key);
  return doomed.length;
}
