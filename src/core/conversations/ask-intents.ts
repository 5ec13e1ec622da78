/**
 * A `/ask` between its acknowledgement and its queue: the platform is answered at once (Slack does
 * not redeliver a slash command), then the root message is posted, which may wait for the channel's
 * budget, and only then is the question queued. An instance that dies in between would lose it, so
 * the question is written first, with its entry in a due index that its instance keeps a lease ahead
 * (the entry is its lease: no lease key while it lives); once the instance stops moving it, the entry
 * falls due and another instance finishes the job (posts the root if the record has none, then
 * queues), under a lease of its own then, so only one instance takes it.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { CoreContext } from '../context';
import { memorySlot } from '../memory';
import { leaseTimings } from '../leases';
import { type Actor, type Attachment, type MessageRef, type Place, SURFACE_NAMES, type SurfaceName } from '../surface';
import { actorSchema, attachmentSchema, messageRefSchema, parseStored, placeSchema, toJson } from './model';

/** Global (walked by every instance's sweep, like answers in flight); its lease has the record's name. */
export const ASK_INTENT_PREFIX = 'askintent:';
const PREFIX = ASK_INTENT_PREFIX;
/** Kept at most a day: an intent no instance could finish by then is dropped. */
const INTENT_TTL_MS = 24 * 60 * 60 * 1000;

const askIntentSchema = z.object({
  surface: z.enum(SURFACE_NAMES),
  place: placeSchema,
  actor: actorSchema,
  question: z.string(),
  /** Files asked about with the question (Discord's `/ask` form), queued with it. */
  attachments: z.array(attachmentSchema).optional(),
  owner: z.string(),
  /** The root message and its thread, once posted (not posted again by an instance that takes over). */
  root: messageRefSchema.optional(),
  thread: placeSchema.optional(),
  /**
   * Its instance holds it by its due entry alone (no lease key): the first sweep's walk of every
   * intent leaves it to the due index (an intent without it, of an older version, has a lease key).
   */
  dueHeld: z.boolean().optional(),
});

export type AskIntent = z.infer<typeof askIntentSchema>;

const leaseOf = (id: string): string => `${PREFIX}${id}`;

/**
 * The due index of `/ask`s not yet queued: each is due when its instance's lease may have run out,
 * so a sweep reads those, not every intent (a sweep that finds the lease held moves it to its end).
 */
export const ASK_INTENT_INDEX = 'askintent';
const DUE_PER_SWEEP = 500;
/** Whether this bridge's sweeps walked the intents once. */
const WALKED = memorySlot<{ done: boolean }>('ask intents: walked once');

/** One `/ask` held by this instance until its question is queued (its hold renewed meanwhile). */
export class AskInProgress {
  private readonly renew: NodeJS.Timeout;

  constructor(
    private readonly ctx: CoreContext,
    private readonly id: string,
    readonly intent: AskIntent,
    /** Held by a lease key (taken over from a dead instance), not by its due entry alone. */
    private readonly leased: boolean,
  ) {
    const { ttlMs, renewMs } = leaseTimings(ctx.config.leaseTtlMs);
    this.renew = setInterval(() => {
      // Every renewal moves the entry a lease ahead: a sweep finds it due only when this instance
      // stopped renewing for as long as a lease would have lasted.
      const dueAt = ctx.now() + ttlMs;
      const move = { index: ASK_INTENT_INDEX, member: id, dueAt };
      const held = leased
        ? ctx.store.renewLease(leaseOf(id), ctx.config.instanceId, ttlMs, move)
        : ctx.store.schedule(ASK_INTENT_INDEX, id, dueAt);
      held.catch(() => undefined);
    }, renewMs);
    this.renew.unref();
  }

  /** The root is posted: an instance taking over from here only queues the question. */
  async rooted(root: MessageRef, thread: Place): Promise<void> {
    Object.assign(this.intent, { root, thread });
    await this.ctx.store.set(`${PREFIX}${this.id}`, toJson(this.intent), INTENT_TTL_MS);
  }

  /** Queued (or failed and told): nothing is left to take over. */
  async end(): Promise<void> {
    clearInterval(this.renew);
    await this.ctx.store.delete(`${PREFIX}${this.id}`);
    await this.ctx.store.unschedule(ASK_INTENT_INDEX, this.id);
    if (this.leased) await this.ctx.store.releaseLease(leaseOf(this.id), this.ctx.config.instanceId);
  }
}

/** Writes the `/ask` down before anything else is done for it. */
export async function beginAsk(
  ctx: CoreContext,
  ask: { surface: SurfaceName; place: Place; actor: Actor; question: string; attachments?: Attachment[] },
): Promise<AskInProgress> {
  const id = randomUUID();
  const { attachments, ...rest } = ask;
  const intent: AskIntent = {
    ...rest,
    ...(attachments?.length ? { attachments } : {}),
    owner: ctx.config.instanceId,
    dueHeld: true,
  };
  const { ttlMs } = leaseTimings(ctx.config.leaseTtlMs);
  // Indexed first (a lease ahead: the hold): a crash between leaves an entry without an intent (a sweep drops it).
  await ctx.store.schedule(ASK_INTENT_INDEX, id, ctx.now() + ttlMs);
  await ctx.store.set(`${PREFIX}${id}`, toJson(intent), INTENT_TTL_MS);
  return new AskInProgress(ctx, id, intent, false);
}

/**
 * Takes the `/ask`s whose instance died (their lease lapsed), each by one instance, and hands them to
 * `finish`, which ends them. Returns how many were taken.
 */
export async function takeLostAsks(ctx: CoreContext, finish: (ask: AskInProgress) => Promise<void>): Promise<number> {
  const { store, config, log } = ctx;
  let taken = 0;
  // The first sweep of this bridge also walks every intent (those an older version wrote without the index).
  const walkedOnce = ctx.memory.get(WALKED, () => ({ done: false }));
  const walk = !walkedOnce.done;
  walkedOnce.done = true;
  const due = (await store.due(ASK_INTENT_INDEX, ctx.now(), DUE_PER_SWEEP)).map((e) => e.member);
  const walked = walk ? (await store.keys(PREFIX)).map((key) => key.slice(PREFIX.length)) : [];
  const isDue = new Set(due);
  for (const id of new Set([...due, ...walked])) {
    const key = `${PREFIX}${id}`;
    const intent = parseStored(askIntentSchema, await store.get(key));
    if (!intent) {
      await store.delete(key);
      await store.unschedule(ASK_INTENT_INDEX, id);
      continue;
    }
    // Held by its due entry, not due yet: its instance is alive.
    if (intent.dueHeld && !isDue.has(id)) continue;
    // Held by a lease (an older version's, or an instance's that took it over): looked at again at its end.
    const lease = await store.leaseInfo(leaseOf(id));
    if (lease) {
      await store.schedule(ASK_INTENT_INDEX, id, lease.expiresAt);
      continue;
    }
    if (!(await store.acquireLease(leaseOf(id), config.instanceId, leaseTimings(config.leaseTtlMs).ttlMs))) continue;
    log.warn(
      { owner: intent.owner, rooted: intent.root !== undefined },
      'conversation: finishing an /ask whose instance died',
    );
    taken++;
    await finish(new AskInProgress(ctx, id, { ...intent, owner: config.instanceId }, true)).catch((err: unknown) =>
      log.error({ err }, 'conversation: could not finish an /ask whose instance died'),
    );
  }
  return taken;
}
