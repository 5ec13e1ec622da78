/**
 * The relay: a streamed answer becomes chat messages that are posted, then edited as text arrives.
 *
 * Per answer (`AnswerRun`), three parts: the reader (`answer-reader.ts`) turns the event stream into
 * text, a final or an interruption; the segmenter (`segmenter.ts`, pure) cuts the text into the
 * pieces the messages carry and says what the live one may show; the reconciler (`reconciler.ts`)
 * brings the platform messages to that view through the surface's gateway. The run also keeps the
 * answer's in-flight record and lease, so another instance can finish an answer this one abandons.
 * Glossary: README.md in this folder.
 */
import type { Logger } from 'pino';
import type { AnswerEvent, FinalEvent } from '../../service/answer-events';
import type { StateStore } from '../../state/store';
import type { Button, Card, FeedbackPrompt, MessageRef, Person, Place, SurfacePort } from '../surface';
import { RelayInterrupt, readAnswer } from './answer-reader';
import { FencedOut, HeldLease } from '../held-lease';
import { leaseTimings } from '../leases';
import { INFLIGHT_INDEX, inflightKey, inflightLease } from './inflight';
import type { InflightRecord } from './inflight';
import { InflightCheckpoint } from './checkpoint';
import { Reconciler } from './reconciler';
import { Segmenter } from './segmenter';
import { Wake } from './wake';
import type { LinkTrust } from '../text/links';

export { stoppedAnswering } from './answer-reader';

export interface RelayRequest {
  surface: SurfacePort;
  /** The thread the answer goes to. */
  place: Place;
  /** Whom the answer is for (its request's `for`): a native stream is addressed to them. */
  for?: Person;
  events: AsyncIterable<AnswerEvent>;
  /** Already posted by the caller: the answer starts there (and never as a native stream). */
  placeholder?: MessageRef;
  /**
   * Start the answer as a native stream where the surface offers one. The caller decides (it posts
   * no placeholder then); the relay falls back to post and edit when the surface refuses.
   */
  native?: boolean;
  /** Buttons under the last message of a complete answer (e.g. "Talk to a human"). */
  finalButtons: Button[];
  /** The rating control of the last message of a complete answer. */
  finalFeedback?: FeedbackPrompt;
  /** Cards under the last message of a complete answer, from its text (the listings it names). */
  finalCards?: (answer: string) => Card[];
  /** The Retry button offered on interruption. */
  retry: { action: string; value: string };
  /**
   * Which links of the answer may show under their label (core/text/links.ts); every other link
   * shows its URL as written. Absent: none may.
   */
  links?: LinkTrust;
  /**
   * Stops the answer (shutdown). Silence is the event stream's to end: the service client ends a
   * stream that goes quiet past its idle timeout with an error, which `explain` puts in words.
   */
  signal?: AbortSignal;
  /**
   * Drops the answer (its tenant left): reading stops, no further platform call is made for it (a
   * call waiting for budget fails when it would go out), nothing is marked interrupted, and its
   * in-flight record goes, so no other instance marks it either. Aborted with a FencedOut reason
   * (core/held-lease.ts: this instance lost the thread's lease), the same, but the record is left for
   * recovery to mark.
   */
  drop?: AbortSignal;
  /** Unique per answer: names its in-flight record. */
  answerKey: string;
  /**
   * The words for why an answer stopped on an error of its event stream (shown in the interruption
   * notice). The relay knows no service: its caller does. Default: a generic sentence.
   */
  explain?: (err: unknown) => string;
}

export interface RelayResult {
  /** `dropped`: stopped by `RelayRequest.drop` or a lost lease; its messages were left as they were. */
  status: 'complete' | 'interrupted' | 'dropped';
  /** The final answer, or the partial text of an interrupted one. */
  text: string;
  messages: MessageRef[];
  final?: FinalEvent;
  /** Why it was interrupted, or a platform failure that left a message behind its target. */
  error?: unknown;
}

export interface RelayOptions {
  /** Least time between two interim updates of one message (the budget may space them more). */
  minInterimIntervalMs?: number;
  /** The answer's lease (core/leases.ts: INSTANCE_LEASE_S, renewed every third of it). */
  leaseTtlMs?: number;
  leaseRenewMs?: number;
  /** Rotate a native stream to a new message this long before it expires. */
  nativeExpiryMarginMs?: number;
  /** Tries of one final (non-rate-limit) platform call before the relay gives that message up. */
  finalAttempts?: number;
  /**
   * Longest a message's visible text may stay behind settled text it cannot show yet (its cut may
   * still land before that text). Past this, the relay commits to cutting no earlier than the latest
   * settled natural cut, so the text shows; the cut may then be a weaker boundary.
   */
  maxHoldMs?: number;
}

export interface RelayDeps {
  store: StateStore;
  log: Logger;
  /** The bridge's one clock (the context's `now`; a test or the bench passes its own). */
  now: () => number;
  instanceId: string;
  options?: RelayOptions;
}

const DEFAULTS = {
  minInterimIntervalMs: 600,
  leaseTtlMs: leaseTimings().ttlMs,
  leaseRenewMs: leaseTimings().renewMs,
  nativeExpiryMarginMs: 30_000,
  finalAttempts: 3,
  maxHoldMs: 1000,
};

/** One answer being relayed: the reader feeds the segmenter, the reconciler follows it. */
class AnswerRun {
  private readonly seg: Segmenter;
  private readonly wake = new Wake();
  private readonly messages: Reconciler;
  private final: FinalEvent | undefined;
  /** Why the answer was interrupted. */
  private stopError: unknown;
  private readonly stopController = new AbortController();
  /** The answer's lease as this run holds it: its record is written under it (fenced). */
  private lease: HeldLease | undefined;
  /** The answer's in-flight record, written under the lease. */
  private checkpoint: InflightCheckpoint | undefined;
  /** When the relay began the answer (its in-flight record says so: recovery tells a left tenant's). */
  private readonly startedAt: number;
  readonly done: Promise<RelayResult>;

  constructor(
    private readonly deps: RelayDeps,
    private readonly opts: typeof DEFAULTS,
    private readonly req: RelayRequest,
  ) {
    this.seg = new Segmenter({ limit: req.surface.limits.maxMessageLength, maxHoldMs: opts.maxHoldMs });
    this.messages = new Reconciler({
      surface: req.surface,
      place: req.place,
      ...(req.for ? { for: req.for } : {}),
      placeholder: req.placeholder,
      native: req.native === true,
      seg: this.seg,
      ending: {
        buttons: req.finalButtons,
        feedback: req.finalFeedback,
        retry: req.retry,
        ...(req.finalCards ? { cards: req.finalCards } : {}),
      },
      links: req.links ?? (() => false),
      wake: this.wake,
      coalesceKey: `relay:${deps.instanceId}:${req.answerKey}`,
      answerKey: req.answerKey,
      log: deps.log,
      now: () => this.now,
      options: opts,
      changed: () => this.checkpoint?.changed(),
    });
    this.startedAt = deps.now();
    this.done = this.run();
  }

  /** Stop now: what arrived so far stays, marked interrupted. */
  interrupt(reason: string): void {
    this.stopController.abort(new RelayInterrupt(reason));
  }

  private get now(): number {
    return this.deps.now();
  }

  /** Dropped (its tenant left) or fenced out (a lease lost): nothing more is shown or marked. */
  private get dropped(): boolean {
    return this.req.drop?.aborted === true || this.lease?.lost.aborted === true;
  }

  /** The answer is dropped: the reconciler makes no call from now on and the reader stops. */
  private readonly dropNow = (): void => {
    this.messages.halt();
    this.stopController.abort(new RelayInterrupt('dropped'));
  };

  private async run(): Promise<RelayResult> {
    if (this.dropped) return { status: 'dropped', text: '', messages: [] };
    this.req.drop?.addEventListener('abort', this.dropNow, { once: true });
    try {
      return await this.relay();
    } finally {
      this.req.drop?.removeEventListener('abort', this.dropNow);
    }
  }

  private async relay(): Promise<RelayResult> {
    const { store, log, instanceId } = this.deps;
    const { leaseTtlMs, leaseRenewMs } = this.opts;
    // Its renewals keep the answer's due entry (scheduled below) at the lease's end.
    const key = this.req.answerKey;
    const due = { index: INFLIGHT_INDEX, member: key, dueAt: this.now + leaseTtlMs, now: () => this.now };
    const timings = { ttlMs: leaseTtlMs, renewMs: leaseRenewMs };
    const lease = await HeldLease.take(store, inflightLease(key), instanceId, timings, due);
    if (!lease) {
      // The key is this answer's own: held elsewhere, it is no longer this instance's to relay.
      log.warn({ answerKey: this.req.answerKey }, 'in-flight lease held elsewhere; the answer is left to it');
      return { status: 'dropped', text: '', messages: [] };
    }
    this.lease = lease;
    // A lost lease (this instance stalled past it: another may be marking the answer now) stops the
    // answer at once, as a drop does, but leaves its record to whoever holds the lease.
    lease.lost.addEventListener('abort', this.fencedOut, { once: true });
    // Due for a recovery sweep's look when this lease may have run out (inflight.ts's index), indexed
    // before the record is written: a crash between leaves an entry without a record, which a sweep
    // drops, never a record no sweep finds.
    const indexed = store
      .schedule(INFLIGHT_INDEX, this.req.answerKey, due.dueAt)
      .catch((err: unknown) => log.warn({ err }, 'could not index the in-flight record'));
    const checkpoint = new InflightCheckpoint(
      { store, lease, answerKey: key, log, record: () => this.record(), dropped: () => this.dropped },
      indexed,
    );
    this.checkpoint = checkpoint;
    checkpoint.start();
    this.messages.reserveFinal();

    try {
      const stops = [this.stopController.signal, ...(this.req.signal ? [this.req.signal] : [])];
      const reading = readAnswer(
        this.req.events,
        { stops, explain: this.req.explain },
        {
          delta: (text) => this.delta(text),
          final: (ev) => this.finish(ev),
          interrupted: (reason, error, partial) => this.interruptWith(reason, error, partial),
        },
      );
      await this.messages.run();
      await reading;
    } finally {
      this.messages.release();
      lease.lost.removeEventListener('abort', this.fencedOut);
      await checkpoint.end();
      await indexed;
      // The record, its index entry and the lease go in one fenced step (refused once the lease is
      // another's). A thread lost (the drop's reason) leaves them too: recovery marks the answer.
      if (this.fenced) await lease.release();
      else
        await lease.finish([
          { op: 'delete', key: inflightKey(key) },
          { op: 'unschedule', index: INFLIGHT_INDEX, member: key },
        ]);
    }

    const messages = this.messages.messages;
    const { final } = this;
    const lastError = this.messages.lastError;
    if (this.dropped) return { status: 'dropped', text: this.seg.text, messages };
    if (final) return { status: 'complete', text: final.answer, messages, final, error: lastError };
    return { status: 'interrupted', text: this.seg.text, messages, error: this.stopError ?? lastError };
  }

  /** This instance lost the answer's lease or its thread's: no further call or write for the answer. */
  private get fenced(): boolean {
    return this.lease?.lost.aborted === true || this.req.drop?.reason instanceof FencedOut;
  }

  private readonly fencedOut = (): void => {
    this.deps.log.warn({ answerKey: this.req.answerKey }, 'lost the in-flight lease; the answer stopped here');
    this.dropNow();
  };

  private delta(text: string): void {
    // The live message's cut is decided: an interim of it waiting for its planned turn in the
    // gateway goes now, so the seal (and the next message) does not wait for that turn.
    if (this.seg.push(text)) this.messages.promote();
    this.wake.bump();
  }

  private finish(final: FinalEvent): void {
    if (!this.seg.finish(final.answer, this.messages.messages.length)) return;
    this.final = final;
    this.messages.promote();
    this.wake.bump();
  }

  private interruptWith(reason: string, error: unknown, partial?: string): void {
    // A dropped answer is not marked: its tenant is gone.
    if (this.dropped) return;
    if (partial !== undefined) this.seg.catchUp(partial);
    if (!this.seg.interrupt(reason)) return;
    this.stopError = error ?? new Error(reason);
    this.deps.log.info({ answerKey: this.req.answerKey, reason }, 'answer interrupted');
    this.messages.promote();
    this.wake.bump();
  }

  /** The in-flight record as the answer stands now (what recovery would mark). */
  private record(): InflightRecord {
    return {
      surface: this.req.surface.name,
      place: this.req.place,
      messages: this.messages.shown,
      retry: this.req.retry,
      owner: this.deps.instanceId,
      startedAt: this.startedAt,
      updatedAt: this.now,
    };
  }
}

/** Relays streamed answers into messages; one per process, shared by every answer. */
export class Relay {
  private readonly opts: typeof DEFAULTS;
  private readonly running = new Map<string, AnswerRun>();

  constructor(private readonly deps: RelayDeps) {
    this.opts = { ...DEFAULTS, ...stripUndefined(deps.options ?? {}) };
  }

  /** Answers currently streaming. */
  get inFlight(): number {
    return this.running.size;
  }

  async run(req: RelayRequest): Promise<RelayResult> {
    const run = new AnswerRun(this.deps, this.opts, req);
    const id = `${req.answerKey}#${Math.random().toString(36).slice(2)}`;
    this.running.set(id, run);
    try {
      return await run.done;
    } finally {
      this.running.delete(id);
    }
  }

  /** Interrupts every running answer now (each keeps its text, marked, with Retry); resolves when all are marked. */
  async markAllInFlight(reason: string): Promise<void> {
    const runs = [...this.running.values()];
    for (const r of runs) r.interrupt(reason);
    await Promise.allSettled(runs.map((r) => r.done));
  }

  /**
   * For SIGTERM: lets running answers finish for most of `deadlineMs`, then marks the rest
   * interrupted, keeping time for those last edits. Resolves by the deadline at the latest.
   */
  async shutdown(deadlineMs: number, reason = 'the bridge is restarting'): Promise<void> {
    // The deadline is one real timer started now (a duration, so a test's fake clock cannot move it).
    let deadlineTimer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      deadlineTimer = setTimeout(resolve, Math.max(0, deadlineMs));
    });
    const markReserve = Math.min(3000, deadlineMs / 2);
    const all = (): Promise<unknown> => Promise.allSettled([...this.running.values()].map((r) => r.done));
    await Promise.race([withTimeout(all(), Math.max(0, deadlineMs - markReserve)), deadline]);
    if (this.running.size > 0) await Promise.race([this.markAllInFlight(reason).catch(() => undefined), deadline]);
    clearTimeout(deadlineTimer);
  }
}

function withTimeout(p: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    p.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      () => {
        clearTimeout(timer);
        resolve();
      },
    );
  });
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
