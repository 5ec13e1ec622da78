/**
 * A short-lived copy of what a platform said about one of a tenant's users or channels (a Slack
 * user's users.info, a channel's members, a Discord channel's viewers), kept in the state store
 * under the tenant (state/tenant-store.ts) rather than in this process, so that:
 * - every instance sharing the store sees the same answer (an agent or an admin is one for all of
 *   them, and one lookup serves them all);
 * - a tenant that leaves takes its copies with it (forgetTenant deletes its whole part of the store),
 *   and nothing of it stays in a process to be served to a re-install.
 * Each entry expires after the TTL its caller gives (the store's TTL, and `until` checked against
 * the caller's clock, which tests move). The only thing held in memory is a lookup in flight, shared
 * by the callers that ask for the same entry meanwhile and dropped as soon as it settles.
 */
import type { Json, StateStore } from '../state/store';
import { scoped, type TenantKind, tenantFor, tenantStore } from '../state/tenant-store';

/** What a lookup gives: the value to keep and for how long; undefined keeps nothing (asked again next time). */
export type Fetched<V> = { value: V; ttlMs: number } | undefined;

type Entry = { until: number; value: Json };

export class TenantCache<V extends Json> {
  private readonly inFlight = new Map<string, Promise<V | undefined>>();

  constructor(
    private readonly store: StateStore,
    private readonly surface: TenantKind,
    /** The kind of entry (`user`, `members`...): the key's first part under the tenant. */
    private readonly kind: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The tenant's entry `id`, from the store while fresh, else from `fetch` (kept as it says). */
  get(tenant: string, id: string, fetch: () => Promise<Fetched<V>>): Promise<V | undefined> {
    const flight = `${encodeURIComponent(tenant)}:${encodeURIComponent(id)}`;
    let pending = this.inFlight.get(flight);
    if (!pending) {
      pending = this.read(tenant, id, fetch).finally(() => this.inFlight.delete(flight));
      this.inFlight.set(flight, pending);
    }
    return pending;
  }

  /** Drops the tenant's entry `id` (a list the caller knows to be stale). */
  async drop(tenant: string, id: string): Promise<void> {
    await this.view(tenant).delete(scoped('cache', this.kind, id));
  }

  private view(tenant: string) {
    return tenantStore(this.store, tenantFor(this.surface, tenant));
  }

  private async read(tenant: string, id: string, fetch: () => Promise<Fetched<V>>): Promise<V | undefined> {
    const key = scoped('cache', this.kind, id);
    const view = this.view(tenant);
    // A store that cannot be read is a miss: the platform is asked, as without a cache.
    const hit = await view.get<Entry>(key).catch(() => undefined);
    if (hit && typeof hit.until === 'number' && hit.until > this.now()) return hit.value as V;
    const got = await fetch();
    if (!got) return undefined;
    // Kept for the other instances too; a write that fails only costs them a lookup of their own.
    await view.set(key, { until: this.now() + got.ttlMs, value: got.value }, got.ttlMs).catch(() => undefined);
    return got.value;
  }
}
