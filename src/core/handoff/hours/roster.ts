/**
 * The agents round-robin assignment (HANDOFF_ASSIGN=round-robin) offers tickets to, and whether each
 * is away (`/handoff away`, `/handoff back`). Each tenant has its own roster and its own turn, in its
 * part of the store: the agents of a handoff channel are people of the channel's workspace or server,
 * so an agent's availability is their own tenant's (where they say `/handoff away` or claim), the
 * offers of a ticket read the roster of the tenant whose channel holds it (another surface's users'
 * tickets of the same office included), and the queue and App Home show only the viewer's away agents.
 * A tenant that leaves takes its roster with its part of the store. Stored, so every instance and a
 * restart see the same roster and the same turn. Where the surface lists the handoff channel's people
 * (Slack; Discord with the Server Members Intent), they are the roster, in the surface's order;
 * elsewhere an agent joins it by saying either command or by claiming a ticket, and the turn goes
 * round them in the order they joined.
 *
 * Before tenants, one global roster (`agentroster:<surface>:<id>`, the turn `agentroster-turn`) served
 * the deployment's own channels: those entries belong to the tenant the environment's channel serves
 * (`legacy`), and move into its part when it first reads them (an agent's newer mark there wins).
 */
import { z } from 'zod';
import type { Json, StateStore } from '../../../state/store';
import {
  scoped,
  scopedPrefix,
  tenantStore,
  type ScopedKey,
  type Tenant,
  type TenantStore,
} from '../../../state/tenant-store';
import type { CoreContext } from '../../context';
import { actorSchema } from '../../conversations/model';
import { agentsTenant, ownsEnvChannel } from '../../tenants/offices';
import type { Actor, SurfaceName } from '../../surface';

const entrySchema = z.object({
  actor: actorSchema,
  surface: z.string(),
  away: z.boolean(),
  joinedAt: z.number(),
  changedAt: z.number(),
});
export type RosterEntry = z.infer<typeof entrySchema> & { key: string };

const ROSTER = 'agentroster';
const TURN_KEY = scoped('agentroster-turn');
/** The global keys of before (the entries, their turn). */
const LEGACY_PREFIX = 'agentroster:';
const LEGACY_TURN = 'agentroster-turn';
const CAS_ATTEMPTS = 10;

/** An entry's key, relative to its tenant: the same text the global key had, so offers recorded on tickets still match. */
const keyOf = (surface: string, actorId: string): ScopedKey => scoped(ROSTER, surface, actorId);

export class Roster {
  /** This roster (made for one offer, command or queue) has adopted the global entries of before. */
  private adopted = false;

  /**
   * @param view the tenant's part of the store
   * @param legacy the raw store, where this tenant is the one the global roster of before served
   */
  constructor(
    private readonly view: TenantStore,
    private readonly now: () => number,
    private readonly legacy?: StateStore,
  ) {}

  async entries(): Promise<RosterEntry[]> {
    await this.adoptLegacy();
    const out: RosterEntry[] = [];
    for (const key of await this.view.keys(scopedPrefix(ROSTER))) {
      const parsed = entrySchema.safeParse(await this.view.get(key));
      if (parsed.success) out.push({ ...parsed.data, key });
    }
    return out.sort((a, b) => a.joinedAt - b.joinedAt || a.key.localeCompare(b.key));
  }

  /** Sets an agent's availability (joining the roster if new). The entry as it is now. */
  async setAway(surface: SurfaceName, actor: Actor, away: boolean): Promise<RosterEntry> {
    // An older global mark's joining time is kept (and it is not adopted over this one later).
    await this.adoptLegacy();
    const key = keyOf(surface, actor.id);
    for (let i = 0; i < CAS_ATTEMPTS; i++) {
      const raw = await this.view.get(key);
      const old = entrySchema.safeParse(raw);
      const now = this.now();
      const next = {
        actor: { id: actor.id, name: actor.name, isAdmin: actor.isAdmin },
        surface,
        away,
        joinedAt: old.success ? old.data.joinedAt : now,
        changedAt: now,
      };
      if (await this.view.compareAndSet(key, raw, next as unknown as Json)) return { ...next, key };
    }
    throw new Error('roster: could not record availability (contention)');
  }

  /** An agent who claims a ticket is on the roster from then on (available unless they said away). */
  async join(surface: SurfaceName, actor: Actor): Promise<void> {
    await this.adoptLegacy();
    const now = this.now();
    await this.view.setIfAbsent(keyOf(surface, actor.id), {
      actor: { id: actor.id, name: actor.name, isAdmin: actor.isAdmin },
      surface,
      away: false,
      joinedAt: now,
      changedAt: now,
    } as unknown as Json);
  }

  /**
   * The next available agent on `surface` after `after` (an entry key; else after the roster's turn),
   * skipping `skip`; the roster's turn moves to them. Undefined when nobody is available.
   */
  async next(
    surface: SurfaceName,
    opts: { after?: string; skip?: string[]; members?: Actor[] } = {},
  ): Promise<RosterEntry | undefined> {
    const all = await this.on(surface, opts.members);
    const available = all.filter((e) => !e.away);
    if (available.length === 0) return undefined;
    const fresh = available.filter((e) => !(opts.skip ?? []).includes(e.key));
    const pool = fresh.length > 0 ? fresh : available;
    for (let i = 0; i < CAS_ATTEMPTS; i++) {
      const stored = await this.view.get<string>(TURN_KEY);
      const turn = typeof stored === 'string' ? stored : await this.legacyTurn();
      const after = opts.after ?? turn;
      const from = after === undefined ? -1 : all.findIndex((e) => e.key === after);
      // The first in roster order after `after`, wrapping round.
      const ordered = [...all.slice(from + 1), ...all.slice(0, from + 1)];
      const chosen = ordered.find((e) => pool.some((p) => p.key === e.key));
      if (!chosen) return undefined;
      if (await this.view.compareAndSet(TURN_KEY, stored, chosen.key)) return chosen;
    }
    return undefined;
  }

  /** The roster on `surface`: the channel's `members` when listed (away as stored), else who joined. */
  async on(surface: SurfaceName, members: Actor[] | undefined): Promise<RosterEntry[]> {
    const stored = (await this.entries()).filter((e) => e.surface === surface);
    if (!members) return stored;
    return members.map((actor) => {
      const key = keyOf(surface, actor.id);
      const known = stored.find((e) => e.key === key);
      return known ?? { key, actor, surface, away: false, joinedAt: 0, changedAt: 0 };
    });
  }

  /**
   * The global entries of before of this tenant's surface, moved into its part: copied where the
   * agent has no entry here yet (a mark said since is newer), then deleted. Idempotent, so two
   * instances adopting at once agree.
   */
  private async adoptLegacy(): Promise<void> {
    // Once per roster (one offer, one command): the global keys are listed by a scan of the store.
    if (!this.legacy || this.adopted) return;
    this.adopted = true;
    for (const raw of await this.legacy.keys(LEGACY_PREFIX)) {
      const parsed = entrySchema.safeParse(await this.legacy.get(raw));
      if (!parsed.success || parsed.data.surface !== this.view.tenant.surface) continue;
      await this.view.setIfAbsent(keyOf(parsed.data.surface, parsed.data.actor.id), parsed.data as unknown as Json);
      await this.legacy.delete(raw);
    }
  }

  /** The global turn of before, where it was one of this surface's agents (until this tenant's own is set). */
  private async legacyTurn(): Promise<string | undefined> {
    const turn = this.legacy ? await this.legacy.get<string>(LEGACY_TURN) : undefined;
    return typeof turn === 'string' && turn.startsWith(`${LEGACY_PREFIX}${this.view.tenant.surface}:`)
      ? turn
      : undefined;
  }
}

/**
 * The roster of `tenant`'s agents: the tenant an agent acts from (`/handoff away|back`, a claim), the
 * tenant of the handoff channel a ticket is in (its offers), the viewing tenant (the queue).
 */
export function rosterOf(ctx: CoreContext, tenant: Tenant): Roster {
  const own = agentsTenant(ctx, tenant);
  return new Roster(tenantStore(ctx.store, own), () => ctx.now(), ownsEnvChannel(ctx, own) ? ctx.store : undefined);
}
