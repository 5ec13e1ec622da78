/**
 * The agents round-robin assignment (HANDOFF_ASSIGN=round-robin) offers tickets to, and whether each
 * is away (`/handoff away`, `/handoff back`). Stored, so every instance and a restart see the same
 * roster and the same turn. Where the surface lists the handoff channel's people (Slack; Discord
 * with the Server Members Intent), they are the roster, in the surface's order; elsewhere an agent
 * joins it by saying either command or by claiming a ticket, and the turn goes round them in the
 * order they joined.
 */
import { z } from 'zod';
import type { Json, StateStore } from '../../../state/store';
import { actorSchema } from '../../conversations/model';
import type { Actor, SurfaceName } from '../../surface';

const entrySchema = z.object({
  actor: actorSchema,
  surface: z.string(),
  away: z.boolean(),
  joinedAt: z.number(),
  changedAt: z.number(),
});
export type RosterEntry = z.infer<typeof entrySchema> & { key: string };

const PREFIX = 'agentroster:';
const TURN_KEY = 'agentroster-turn';
const CAS_ATTEMPTS = 10;

const keyOf = (surface: string, actorId: string) => `${PREFIX}${surface}:${encodeURIComponent(actorId)}`;

export class Roster {
  constructor(
    private readonly store: StateStore,
    private readonly now: () => number,
  ) {}

  async entries(): Promise<RosterEntry[]> {
    const out: RosterEntry[] = [];
    for (const key of await this.store.keys(PREFIX)) {
      const parsed = entrySchema.safeParse(await this.store.get(key));
      if (parsed.success) out.push({ ...parsed.data, key });
    }
    return out.sort((a, b) => a.joinedAt - b.joinedAt || a.key.localeCompare(b.key));
  }

  /** Sets an agent's availability (joining the roster if new). The entry as it is now. */
  async setAway(surface: SurfaceName, actor: Actor, away: boolean): Promise<RosterEntry> {
    const key = keyOf(surface, actor.id);
    for (let i = 0; i < CAS_ATTEMPTS; i++) {
      const raw = await this.store.get(key);
      const old = entrySchema.safeParse(raw);
      const now = this.now();
      const next = {
        actor: { id: actor.id, name: actor.name, isAdmin: actor.isAdmin },
        surface,
        away,
        joinedAt: old.success ? old.data.joinedAt : now,
        changedAt: now,
      };
      if (await this.store.compareAndSet(key, raw, next as unknown as Json)) return { ...next, key };
    }
    throw new Error('roster: could not record availability (contention)');
  }

  /** An agent who claims a ticket is on the roster from then on (available unless they said away). */
  async join(surface: SurfaceName, actor: Actor): Promise<void> {
    const now = this.now();
    await this.store.setIfAbsent(keyOf(surface, actor.id), {
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
      const turn = await this.store.get<string>(TURN_KEY);
      const after = opts.after ?? (typeof turn === 'string' ? turn : undefined);
      const from = after === undefined ? -1 : all.findIndex((e) => e.key === after);
      // The first in roster order after `after`, wrapping round.
      const ordered = [...all.slice(from + 1), ...all.slice(0, from + 1)];
      const chosen = ordered.find((e) => pool.some((p) => p.key === e.key));
      if (!chosen) return undefined;
      if (await this.store.compareAndSet(TURN_KEY, turn, chosen.key)) return chosen;
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
}
