/**
 * Crash recovery of answers: while an answer streams, the relay keeps a record of it in the store
 * under a short lease. A record whose lease has lapsed belongs to a dead instance; any instance
 * marks its messages "interrupted" with a Retry button, so no placeholder or unmarked partial answer
 * is left behind.
 */
import { z } from 'zod';
import type { Logger } from 'pino';
import {
  type Button,
  type MessageRef,
  type OutMessage,
  SURFACE_NAMES,
  type SurfaceName,
  type SurfacePort,
} from '../surface';
import type { Json, StateStore } from '../../state/store';
import { DEFAULT_LEASE_TTL_MS } from '../leases';

export const INFLIGHT_PREFIX = 'inflight:';

export function inflightKey(answerKey: string): string {
  return `${INFLIGHT_PREFIX}${answerKey}`;
}

export function inflightLease(answerKey: string): string {
  return `lease:${INFLIGHT_PREFIX}${answerKey}`;
}

/**
 * The due index of answers in flight (store.schedule): each answer is due when its lease may have
 * run out, so a recovery sweep reads what is due now, not every record. A sweep that finds the lease
 * still held moves the answer to that lease's end; the answer's end takes it out.
 */
export const INFLIGHT_INDEX = 'inflight';

/** Answers a sweep looks at in one pass (the rest are due on the next). */
const DUE_PER_SWEEP = 500;

const surfaceNameSchema = z.enum(SURFACE_NAMES);

const placeSchema = z.object({
  surface: surfaceNameSchema,
  workspace: z.string(),
  channel: z.string(),
  thread: z.string().optional(),
});

const refSchema = z.object({ place: placeSchema, id: z.string() });

export const inflightRecordSchema = z.object({
  surface: surfaceNameSchema,
  place: placeSchema,
  messages: z.array(
    z.object({
      ref: refSchema,
      /** The text the message last showed (sent successfully). */
      text: z.string(),
      /** The message already shows its finished text (no typing mark). */
      done: z.boolean(),
      /**
       * The message is a live native stream (Slack chat.startStream): only stopping the stream ends
       * it (its ref names it: channel and ts). Absent in records of older versions: a plain message.
       */
      native: z.boolean().optional(),
    }),
  ),
  retry: z.object({ action: z.string(), value: z.string() }),
  owner: z.string(),
  /** When the relay began the answer (absent in records of older versions). */
  startedAt: z.number().optional(),
  updatedAt: z.number(),
});

export type InflightRecord = z.infer<typeof inflightRecordSchema>;

/** Drops `undefined` members so the record is plain JSON. */
export function recordToJson(rec: InflightRecord): Json {
  return JSON.parse(JSON.stringify(rec)) as Json;
}

export function interruptedNotice(reason: string): string {
  // A reason may be the service's own sentence (kept word for word): no second full stop after it.
  const stop = /[.!?。！？]$/.test(reason.trim()) ? '' : '.';
  return `⚠️ Answer interrupted: ${reason.trim()}${stop} Press Retry to ask again.`;
}

export function retryButton(retry: { action: string; value: string }): Button {
  return { label: 'Retry', action: retry.action, value: retry.value };
}

/** What the last message of an interrupted answer shows. */
export function interruptedMessage(text: string, reason: string, retry: { action: string; value: string }): OutMessage {
  return { text, markdown: true, typing: false, notice: interruptedNotice(reason), buttons: [retryButton(retry)] };
}

export interface RecoveryDeps {
  store: StateStore;
  surfaces: (name: SurfaceName) => SurfacePort | undefined;
  log: Logger;
  instanceId: string;
  /** The bridge's one clock (the context's `now`). */
  now: () => number;
  /** The lease the marking instance holds while it marks (core/leases.ts; default 6 s). */
  leaseTtlMs?: number;
  /**
   * Answers this process is marking now, shared by its sweeps: a sweep skips them, so a mark that
   * waits for the budget is not made twice, while answers found later are still taken at once.
   */
  busy?: Set<string>;
  /**
   * An abandoned answer to drop instead of marking (its tenant left after it began: nothing may be
   * posted there). Absent: every abandoned answer is marked.
   */
  dropped?: (rec: InflightRecord) => Promise<boolean>;
}

export interface RecoveryOptions {
  /** Also take records of this owner even if their lease still runs (this instance, restarted). */
  ownedBy?: string;
  /**
   * Also walk every record, not only those due (the first sweep after a start, which `ownedBy`
   * implies: records written before the index existed, by an older version, are found there once).
   */
  scan?: boolean;
  /** Reason shown in the notice. */
  reason?: string;
}

/** Answers marked at once: their edits wait for the platform's budget together, not one after another. */
const MARK_AT_ONCE = 64;

/**
 * Marks the answers of dead instances as interrupted (Retry button, text kept as recorded) and
 * deletes their records. Returns how many were marked. Several at once: a dead instance leaves many
 * answers, and each one's edit may wait for a token of the workspace's budget.
 */
export async function recoverAbandonedAnswers(deps: RecoveryDeps, opts: RecoveryOptions = {}): Promise<number> {
  const { now } = deps;
  const reason = opts.reason ?? 'the bridge restarted';
  const busy = deps.busy ?? new Set<string>();
  const due = (await deps.store.due(INFLIGHT_INDEX, now(), DUE_PER_SWEEP)).map((e) => e.member);
  const walked =
    opts.scan || opts.ownedBy !== undefined
      ? (await deps.store.keys(INFLIGHT_PREFIX)).map((key) => key.slice(INFLIGHT_PREFIX.length))
      : [];
  const answerKeys = [...new Set([...due, ...walked])].filter((answerKey) => !busy.has(answerKey));
  let marked = 0;
  const worker = async (): Promise<void> => {
    for (let answerKey = answerKeys.shift(); answerKey !== undefined; answerKey = answerKeys.shift()) {
      busy.add(answerKey);
      try {
        if (await holdingLease(deps, answerKey, () => recoverOne(deps, answerKey, opts.ownedBy, reason, now))) marked++;
      } catch (err) {
        deps.log.warn({ err, answerKey }, 'could not recover an abandoned answer');
      } finally {
        busy.delete(answerKey);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(MARK_AT_ONCE, answerKeys.length) }, worker));
  return marked;
}

/**
 * Runs `mark` renewing the answer's lease every third of it once `mark` holds it, so an edit that
 * waits for the budget longer than a lease does not let another instance mark the answer again.
 */
async function holdingLease(deps: RecoveryDeps, answerKey: string, mark: () => Promise<boolean>): Promise<boolean> {
  const ttl = deps.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const renew = setInterval(() => {
    deps.store.renewLease(inflightLease(answerKey), deps.instanceId, ttl).catch(() => undefined);
  }, ttl / 3);
  renew.unref();
  try {
    return await mark();
  } finally {
    clearInterval(renew);
  }
}

/** The answer's in-flight record; a malformed one is dropped (undefined). */
async function readRecord(deps: RecoveryDeps, answerKey: string): Promise<InflightRecord | undefined> {
  const raw = await deps.store.get(inflightKey(answerKey));
  if (raw === undefined) return undefined;
  const parsed = inflightRecordSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  deps.log.warn({ answerKey }, 'dropping a malformed in-flight record');
  await deps.store.delete(inflightKey(answerKey));
  return undefined;
}

async function recoverOne(
  deps: RecoveryDeps,
  answerKey: string,
  ownedBy: string | undefined,
  reason: string,
  now: () => number,
): Promise<boolean> {
  const { store } = deps;
  const seen = await readRecord(deps, answerKey);
  if (seen === undefined) {
    // Finished (or dropped) since it was indexed: nothing left to look at.
    await store.unschedule(INFLIGHT_INDEX, answerKey);
    return false;
  }
  const leaseName = inflightLease(answerKey);
  const lease = await store.leaseInfo(leaseName);
  const foundAt = now();
  const lapsed = !lease || lease.expiresAt <= foundAt;
  const mine = ownedBy !== undefined && seen.owner === ownedBy;
  if (!lapsed && !mine) {
    // Alive: looked at again when this lease may have run out.
    if (lease) await store.schedule(INFLIGHT_INDEX, answerKey, lease.expiresAt);
    return false;
  }
  if (!lapsed && mine && lease && lease.owner !== deps.instanceId) await store.releaseLease(leaseName, lease.owner);
  // One instance wins the lease; the others leave the record to it.
  if (!(await store.acquireLease(leaseName, deps.instanceId, deps.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS))) return false;
  // A live owner that finished between the read above and the lease check deleted its record before
  // releasing its lease: read again under the lease, so a finished answer is not marked interrupted.
  const rec = await readRecord(deps, answerKey);
  if (rec === undefined) {
    await store.unschedule(INFLIGHT_INDEX, answerKey);
    await store.releaseLease(leaseName, deps.instanceId);
    return false;
  }

  if (await deps.dropped?.(rec)) {
    await store.delete(inflightKey(answerKey));
    await store.unschedule(INFLIGHT_INDEX, answerKey);
    await store.releaseLease(leaseName, deps.instanceId);
    deps.log.debug({ answerKey, owner: rec.owner }, 'dropped an abandoned answer: its tenant left');
    return false;
  }
  const surface = deps.surfaces(rec.surface);
  if (!surface) {
    deps.log.warn({ answerKey, surface: rec.surface }, 'abandoned answer on a surface this instance lacks');
    await store.releaseLease(leaseName, deps.instanceId);
    return false;
  }
  const last = rec.messages.length - 1;
  if (last < 0) {
    await surface.post(rec.place, interruptedMessage('', reason, rec.retry));
  }
  for (let i = 0; i <= last; i++) {
    const m = rec.messages[i];
    if (!m) continue;
    if (i < last && m.done) continue;
    const ref: MessageRef = m.ref;
    const msg: OutMessage =
      i === last ? interruptedMessage(m.text, reason, rec.retry) : { text: m.text, markdown: true, typing: false };
    // A live native stream is stopped where the surface can (an edit alone would leave it streaming),
    // keeping the text it shows: its record lags its appends (relay/checkpoint.ts), and what the user
    // saw stays. The surface's gateway spends the budgets (recovery edits are finals).
    const streaming = m.native ? surface.streaming : undefined;
    await (streaming ? streaming.stopNativeStream(ref, msg, { keepStreamed: true }) : surface.edit(ref, msg));
  }
  await store.delete(inflightKey(answerKey));
  await store.unschedule(INFLIGHT_INDEX, answerKey);
  await store.releaseLease(leaseName, deps.instanceId);
  // The owner's last record write (its lease ran out at most a lease after it), when this sweep found
  // the lease lapsed, and when the marking edits were done (the wait between is the platform's budget).
  deps.log.info(
    { answerKey, owner: rec.owner, recordUpdatedAt: rec.updatedAt, foundAt, markedAt: now() },
    'marked an abandoned answer interrupted',
  );
  return true;
}
