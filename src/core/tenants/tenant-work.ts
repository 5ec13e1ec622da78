/**
 * The work this bridge is doing for each tenant now (one entry per queue item being answered), so
 * that a tenant that leaves has its answers stopped at once (leave.ts). Kept in the context's
 * CoreMemory: one registry per bridge, none at module level.
 */
import type { CoreContext } from '../context';
import { memorySlot } from '../memory';
import type { SurfacePort } from '../surface';
import { leftGatedPort } from './left-port';

/** One piece of work of a tenant: stopped, with no platform call after, when the tenant leaves. */
export interface TenantWork {
  /** Aborts when the tenant leaves: the service stream closes, the relay drops the answer. */
  readonly signal: AbortSignal;
  /** The tenant has left: the work stops, writes nothing more and tells no one. */
  readonly left: boolean;
  /** `surface` as this work may use it: every call refused once the tenant has left (left-port.ts). */
  port(surface: SurfacePort): SurfacePort;
  /** The work is over (whether or not it was stopped). */
  end(): void;
}

interface Entry {
  /** When the work's conversation began (a tenant that left after it ends it; a re-install's do not). */
  since: number;
  controller: AbortController;
  ended: Promise<void>;
}

/** The running work of every tenant, by tenant key. */
export class TenantWorkRegistry {
  private readonly byTenant = new Map<string, Set<Entry>>();

  begin(tenant: string, since: number): TenantWork {
    const controller = new AbortController();
    let end!: () => void;
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    const entry: Entry = { since, controller, ended };
    const entries = this.byTenant.get(tenant) ?? new Set<Entry>();
    entries.add(entry);
    this.byTenant.set(tenant, entries);
    return {
      signal: controller.signal,
      get left() {
        return controller.signal.aborted;
      },
      port: (surface) => leftGatedPort(surface, controller.signal),
      end: () => {
        entries.delete(entry);
        if (entries.size === 0 && this.byTenant.get(tenant) === entries) this.byTenant.delete(tenant);
        end();
      },
    };
  }

  /** Tenants with work running now. */
  tenants(): string[] {
    return [...this.byTenant.keys()];
  }

  /**
   * Stops the tenant's work whose conversation began at or before `leftAt` (the time it left).
   * Resolves to how many were stopped and a promise that settles when they have all ended.
   */
  stop(tenant: string, leftAt: number): { stopped: number; ended: Promise<void> } {
    const doomed = [...(this.byTenant.get(tenant) ?? [])].filter(
      (e) => e.since <= leftAt && !e.controller.signal.aborted,
    );
    for (const e of doomed) e.controller.abort(new Error('the tenant left'));
    return { stopped: doomed.length, ended: Promise.all(doomed.map((e) => e.ended)).then(() => undefined) };
  }
}

const WORK = memorySlot<TenantWorkRegistry>('running work per tenant');

export function tenantWork(ctx: Pick<CoreContext, 'memory'>): TenantWorkRegistry {
  return ctx.memory.get(WORK, () => new TenantWorkRegistry());
}
