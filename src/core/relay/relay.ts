/**
 * The relay: a streamed answer becomes chat messages that are posted, then edited as text arrives.
 *
 * It works by reconciliation: from the answer's state (streaming text, final answer, or interruption)
 * it derives what each message should show (`layout`), and one loop per answer brings the messages
 * there, one platform call at a time (so at most one edit is in flight per message). Each call reads
 * the layout when it actually runs, so a call that waited for rate budget carries all the text that
 * arrived meanwhile (coalescing).
 */
import type { Logger } from 'pino';
import type { AnswerEvent, FinalEvent } from '../../service/answer-events';
import type { StateStore } from '../../state/store';
import type {
  Button,
  FeedbackPrompt,
  MessageRef,
  NativeStream,
  OutMessage,
  Place,
  Priority,
  SurfacePort,
} from '../surface';
import { inflightKey, inflightLease, LEASE_RENEW_MS, LEASE_TTL_MS, recordToJson } from './inflight';
import type { InflightRecord } from './inflight';
import { isPlatformRateLimit } from './scheduler';
import { type Ending, messagesOf, Segmenter } from './segmenter';
import { Wake } from './wake';

export interface RelayRequest {
  surface: SurfacePort;
  /** The thread the answer goes to. */
  place: Place;
  events: AsyncIterable<AnswerEvent>;
  /** Already posted by the caller; the relay then never uses native streaming for this answer. */
  placeholder?: MessageRef;
  /** Buttons under the last message of a complete answer (e.g. "Talk to a human"). */
  finalButtons: Button[];
  /** The rating control of the last message of a complete answer. */
  finalFeedback?: FeedbackPrompt;
  /** The Retry button offered on interruption. */
  retry: { action: string; value: string };
  /** Silence between events after which the answer counts as interrupted. */
  idleTimeoutMs: number;
  signal?: AbortSignal;
  /** Unique per answer: names its in-flight record. */
  answerKey: string;
  /**
   * The words for why an answer stopped on an error of its event stream (shown in the interruption
   * notice). The relay knows no service: its caller does. Default: a generic sentence.
   */
  explain?: (err: unknown) => string;
}

export interface RelayResult {
  status: 'complete' | 'interrupted';
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
  now?: () => number;
  instanceId: string;
  options?: RelayOptions;
}

interface Slot {
  ref: MessageRef;
  /** Set while the message is a live native stream. */
  native?: NativeStream;
  /** Native: everything appended so far. */
  appended: string;
  /** What the platform shows now (as far as we know). */
  sent: OutMessage;
  createdAt: number;
  lastInterimAt: number;
  failures: number;
  gaveUp: boolean;
  /**
   * A native stream whose append or stop failed: it may still be live on the platform, so it is no
   * longer appended to, and its final call stops it (an edit alone may leave it streaming).
   */
  unstopped: boolean;
}

const DEFAULTS = {
  minInterimIntervalMs: 600,
  leaseTtlMs: LEASE_TTL_MS,
  leaseRenewMs: LEASE_RENEW_MS,
  nativeExpiryMarginMs: 30_000,
  finalAttempts: 3,
  maxHoldMs: 1000,
};

const MAX_INTERIM_FAILURES = 5;

function sameMessage(a: OutMessage | undefined, b: OutMessage): boolean {
  if (!a) return false;
  return (
    a.text === b.text &&
    Boolean(a.typing) === Boolean(b.typing) &&
    (a.notice ?? '') === (b.notice ?? '') &&
    JSON.stringify(a.buttons ?? []) === JSON.stringify(b.buttons ?? []) &&
    JSON.stringify(a.feedback ?? null) === JSON.stringify(b.feedback ?? null)
  );
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return String(s >= 10 ? Math.round(s) : Math.round(s * 10) / 10);
}

/** The interruption notice's words for an answer whose stream went silent. */
export function stoppedAnswering(ms: number): string {
  return `the chatbot service stopped answering (no new text for ${seconds(ms)} s)`;
}

function partialTextOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('partialText' in err)) return undefined;
  const text = (err as { partialText?: unknown }).partialText;
  return typeof text === 'string' ? text : undefined;
}

class RelayInterrupt extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'RelayInterrupt';
  }
}

/** One answer being relayed. */
class AnswerRun {
  private readonly surface: SurfacePort;
  private readonly slots: Slot[] = [];
  /** The answer's text and what each message should carry (pure; see segmenter.ts). */
  private readonly seg: Segmenter;
  private readonly ending: Ending;
  private final: FinalEvent | undefined;
  /** Why the answer was interrupted. */
  private stopError: unknown;
  private readonly wake = new Wake();
  private nativeMode: boolean;
  private readonly coalesceKey: string;
  private readonly stopController = new AbortController();
  private recordChain: Promise<void> = Promise.resolve();
  private lastError: unknown;
  readonly done: Promise<RelayResult>;

  constructor(
    private readonly deps: RelayDeps,
    private readonly opts: typeof DEFAULTS,
    private readonly req: RelayRequest,
  ) {
    this.surface = req.surface;
    this.seg = new Segmenter({ limit: req.surface.limits.maxMessageLength, maxHoldMs: opts.maxHoldMs });
    this.ending = { buttons: req.finalButtons, feedback: req.finalFeedback, retry: req.retry };
    this.nativeMode = req.placeholder === undefined && typeof req.surface.startNativeStream === 'function';
    this.coalesceKey = `relay:${deps.instanceId}:${req.answerKey}`;
    if (req.placeholder) {
      this.slots.push(this.slot(req.placeholder, { text: '', markdown: true, typing: true }));
    }
    this.done = this.run();
  }

  /** Stop now: what arrived so far stays, marked interrupted. */
  interrupt(reason: string): void {
    this.stopController.abort(new RelayInterrupt(reason));
  }

  private get now(): number {
    return (this.deps.now ?? Date.now)();
  }

  private slot(ref: MessageRef, sent: OutMessage, native?: NativeStream): Slot {
    return {
      ref,
      native,
      appended: native ? sent.text : '',
      sent,
      createdAt: this.now,
      lastInterimAt: 0,
      failures: 0,
      gaveUp: false,
      unstopped: false,
    };
  }

  /**
   * How long slot's next interim must wait here: the least interval between two of its interims.
   * The surface's gateway spaces interims further by the budget's plan (see reserveFinal).
   */
  private interimGap(slot: Slot): number {
    return slot.lastInterimAt + this.opts.minInterimIntervalMs - this.now;
  }

  private async run(): Promise<RelayResult> {
    const { store, log, instanceId } = this.deps;
    const leaseName = inflightLease(this.req.answerKey);
    if (!(await store.acquireLease(leaseName, instanceId, this.opts.leaseTtlMs))) {
      log.warn({ answerKey: this.req.answerKey }, 'in-flight lease held elsewhere; relaying anyway');
    }
    this.saveRecord();
    this.reserveFinal();
    const renew = setInterval(() => {
      store
        .renewLease(leaseName, instanceId, this.opts.leaseTtlMs)
        .then((ok) => {
          if (!ok) log.warn({ answerKey: this.req.answerKey }, 'lost the in-flight lease');
        })
        .catch((err: unknown) => log.warn({ err }, 'in-flight lease renewal failed'));
      this.saveRecord();
    }, this.opts.leaseRenewMs);
    renew.unref();

    try {
      const consuming = this.consume();
      await this.reconcile();
      await consuming;
    } finally {
      this.releaseFinal();
      clearInterval(renew);
      await this.recordChain;
      await store.delete(inflightKey(this.req.answerKey)).catch(() => undefined);
      await store.releaseLease(leaseName, instanceId).catch(() => undefined);
    }

    const messages = this.slots.map((s) => s.ref);
    const final = this.final;
    if (final) return { status: 'complete', text: final.answer, messages, final, error: this.lastError };
    return { status: 'interrupted', text: this.seg.text, messages, error: this.stopError ?? this.lastError };
  }

  // ---- reading the stream ----------------------------------------------------------------------

  private explain(err: unknown): string {
    try {
      return this.req.explain?.(err) ?? 'the answer could not be completed';
    } catch {
      return 'the answer could not be completed';
    }
  }

  private async consume(): Promise<void> {
    const iterator = this.req.events[Symbol.asyncIterator]();
    const stops: AbortSignal[] = [this.stopController.signal];
    if (this.req.signal) stops.push(this.req.signal);
    try {
      for (;;) {
        const next = iterator.next();
        next.catch(() => undefined);
        const outcome = await this.raceNext(next, stops);
        if (outcome.kind === 'event') {
          if (outcome.result.done) {
            this.interruptWith('the answer stream ended before it was complete', undefined);
            return;
          }
          const ev = outcome.result.value;
          if (ev.type === 'delta') {
            // The live message's cut is decided: an interim of it waiting for its planned turn in
            // the gateway goes now, so the seal (and the next message) does not wait for that turn.
            if (this.seg.push(ev.text)) this.surface.promote?.(this.coalesceKey);
            this.wake.bump();
          } else {
            this.finish(ev);
            return;
          }
          continue;
        }
        void Promise.resolve(iterator.return?.()).catch(() => undefined);
        if (outcome.kind === 'idle') {
          this.interruptWith(stoppedAnswering(this.req.idleTimeoutMs), undefined);
        } else if (outcome.kind === 'stopped') {
          this.interruptWith(outcome.reason, undefined);
        } else {
          const partial = partialTextOf(outcome.error);
          if (partial !== undefined) this.seg.catchUp(partial);
          this.interruptWith(this.explain(outcome.error), outcome.error);
        }
        return;
      }
    } catch (err) {
      this.interruptWith(this.explain(err), err);
    }
  }

  private raceNext(
    next: Promise<IteratorResult<AnswerEvent>>,
    stops: AbortSignal[],
  ): Promise<
    | { kind: 'event'; result: IteratorResult<AnswerEvent> }
    | { kind: 'error'; error: unknown }
    | { kind: 'idle' }
    | { kind: 'stopped'; reason: string }
  > {
    return new Promise((resolve) => {
      const cleanups: Array<() => void> = [];
      const settle = (v: Parameters<typeof resolve>[0]): void => {
        for (const c of cleanups) c();
        resolve(v);
      };
      const timer = setTimeout(() => settle({ kind: 'idle' }), this.req.idleTimeoutMs);
      cleanups.push(() => clearTimeout(timer));
      for (const s of stops) {
        const onAbort = (): void => {
          const r: unknown = s.reason;
          const reason = r instanceof RelayInterrupt ? r.reason : typeof r === 'string' ? r : 'the bridge stopped';
          settle({ kind: 'stopped', reason });
        };
        if (s.aborted) {
          onAbort();
          return;
        }
        s.addEventListener('abort', onAbort, { once: true });
        cleanups.push(() => s.removeEventListener('abort', onAbort));
      }
      next.then(
        (result) => settle({ kind: 'event', result }),
        (error: unknown) => settle({ kind: 'error', error }),
      );
    });
  }

  private finish(final: FinalEvent): void {
    if (!this.seg.finish(final.answer, this.slots.length)) return;
    this.final = final;
    this.surface.promote?.(this.coalesceKey);
    this.wake.bump();
  }

  private interruptWith(reason: string, error: unknown): void {
    if (!this.seg.interrupt(reason)) return;
    this.stopError = error ?? new Error(reason);
    this.deps.log.info({ answerKey: this.req.answerKey, reason }, 'answer interrupted');
    this.surface.promote?.(this.coalesceKey);
    this.wake.bump();
  }

  // ---- what the messages should show --------------------------------------------------------------

  /**
   * The live message's piece ends where it stands. An interim of this answer waiting for budget now
   * carries a sealing edit (it reads the layout when it runs): a final, and the next message's post
   * waits behind it.
   */
  private sealShown(shown: number): void {
    this.seg.sealShown(shown);
    this.surface.promote?.(this.coalesceKey);
  }

  /** A native stream about to expire is finished at a natural cut within what it already shows. */
  private rotateExpiring(): void {
    const live = this.slots[this.seg.finishedCount];
    if (!live?.native || this.slots.length !== this.seg.finishedCount + 1) return;
    if (this.now < live.native.expiresAt - this.opts.nativeExpiryMarginMs) return;
    // Nothing shown yet: an empty message would be left behind; the idle timeout ends such a stream.
    if (live.appended.length === 0) return;
    this.sealShown(live.appended.length);
  }

  private layout(): OutMessage[] {
    const live = this.slots[this.seg.finishedCount];
    const native = live ? live.native !== undefined : this.nativeMode;
    return messagesOf(this.seg.view(native), this.ending);
  }

  /** True when slot i shows what it should (a live native stream only ever grows). */
  private inSync(slot: Slot, want: OutMessage): boolean {
    if (slot.native && want.typing) {
      return !(want.text.length > slot.appended.length && want.text.startsWith(slot.appended));
    }
    return !slot.native && sameMessage(slot.sent, want);
  }

  // ---- bringing the messages there ---------------------------------------------------------------

  private async reconcile(): Promise<void> {
    for (;;) {
      const seen = this.wake.current;
      if (this.seg.streaming) {
        if (this.seg.settle(this.now)) this.surface.promote?.(this.coalesceKey);
        this.rotateExpiring();
      }
      const layout = this.layout();
      const terminal = !this.seg.streaming;
      const index = this.nextIndex(layout);
      if (index === undefined) {
        if (terminal) return;
        const waits = [this.expiryWaitMs(), this.seg.holdWaitMs(this.now)].filter((w): w is number => w !== undefined);
        await this.wake.wait(seen, waits.length > 0 ? Math.min(...waits) : undefined);
        continue;
      }
      const want = layout[index];
      if (!want) continue;
      const slot = this.slots[index];
      // A new message is never held back: the user must see the bot is on it.
      const priority: Priority = slot && want.typing && !terminal ? 'interim' : 'final';
      if (slot && priority === 'interim' && !slot.native && index === this.seg.finishedCount) {
        const wait = this.seg.interimWaitMs(this.now);
        if (wait > 0) {
          // Text that arrives meanwhile seals the message: its sealing edit then shows it all at once.
          await this.wake.wait(seen, wait);
          continue;
        }
      }
      if (slot && priority === 'interim') {
        const gap = this.interimGap(slot);
        if (gap > 0) {
          // Woken by new text too: it may seal this message, whose final (and the next message's
          // post) must not wait for an interim's turn.
          await this.wake.wait(seen, gap);
          continue;
        }
      }
      await this.step(index, priority);
    }
  }

  private nextIndex(layout: OutMessage[]): number | undefined {
    for (let i = 0; i < layout.length; i++) {
      const slot = this.slots[i];
      const want = layout[i];
      if (!want) continue;
      if (!slot) return this.createGaveUp ? undefined : i;
      if (slot.gaveUp) continue;
      if (slot.failures >= MAX_INTERIM_FAILURES && want.typing) continue;
      // Not edited while it may still stream: its final call stops it.
      if (slot.unstopped && want.typing) continue;
      if (!this.inSync(slot, want)) return i;
    }
    return undefined;
  }

  private expiryWaitMs(): number | undefined {
    const live = this.slots[this.slots.length - 1];
    if (!live?.native) return undefined;
    return Math.max(0, live.native.expiresAt - this.opts.nativeExpiryMarginMs - this.now);
  }

  /** Waits `ms`, or less if the answer finishes or is interrupted meanwhile. */
  private async phaseOrDelay(ms: number): Promise<void> {
    const deadline = this.now + ms;
    while (this.seg.streaming) {
      const left = deadline - this.now;
      if (left <= 0) return;
      const seen = this.wake.current;
      await this.wake.wait(seen, left);
    }
  }

  private async step(index: number, priority: Priority): Promise<void> {
    const creating = this.slots[index] === undefined;
    const op = creating ? 'post' : 'edit';
    try {
      await (creating ? this.create(index, priority) : this.sync(index, priority));
      const slot = this.slots[index];
      if (slot) slot.failures = 0;
      this.saveRecord();
    } catch (err) {
      this.lastError = err;
      const slot = this.slots[index];
      const terminal = !this.seg.streaming;
      this.deps.log.warn({ err, answerKey: this.req.answerKey, index, op }, 'relay platform call failed');
      if (!slot) {
        // The scheduler's retries of a rate-limited native start are spent: post and edit instead.
        if (creating && this.nativeMode && isPlatformRateLimit(err)) this.nativeMode = false;
        if (terminal && ++this.createFailures >= this.opts.finalAttempts) this.createGaveUp = true;
        else await this.phaseOrDelay(this.opts.minInterimIntervalMs);
        return;
      }
      slot.failures++;
      if (slot.native) {
        // A native stream that failed is appended to no more; the rest of the answer is posted and edited.
        slot.sent = { text: slot.appended, markdown: true, typing: true };
        slot.native = undefined;
        slot.unstopped = true;
        this.nativeMode = false;
        this.reserveFinal();
        // A failed append while streaming: the message keeps what it shows (appends end at settled
        // natural cuts) and is finished now, rather than when the whole answer is.
        const live = index === this.seg.finishedCount && index === this.slots.length - 1;
        if (!terminal && live && slot.appended.length > 0) {
          this.sealShown(slot.appended.length);
          this.wake.bump();
        }
      }
      if (terminal && slot.failures >= this.opts.finalAttempts) slot.gaveUp = true;
      else if (!terminal) await this.phaseOrDelay(this.opts.minInterimIntervalMs);
    }
  }

  private createFailures = 0;
  private createGaveUp = false;
  private releaseFinal: () => void = () => undefined;

  /**
   * Until the answer's final call is done, interims on the shared budget leave a token for it, and
   * share that budget's rate with the other answers on it (see interimSpacingMs). Registered on the
   * budget the message's edits spend now: a live native stream's are its appends, so the streams
   * that append share the append budget evenly instead of the first ones spending it all.
   */
  private reserveFinal(): void {
    const previous = this.releaseFinal;
    // Registered before the old one goes, so the answer keeps its place (and interim rhythm).
    this.releaseFinal = this.surface.reserveFinal?.(this.req.place, this.coalesceKey) ?? (() => undefined);
    previous();
  }

  /** The send options of one call of this answer; `latest` is read when the call goes out. */
  private sendOpts(priority: Priority, latest: () => OutMessage) {
    return { priority, coalesceKey: this.coalesceKey, latest };
  }

  /** Posts message `index` (a native stream when the surface offers one), with the layout as it is when it goes. */
  private async create(index: number, priority: Priority): Promise<void> {
    if (this.slots[index]) return;
    const want = this.layout()[index];
    if (!want) return;
    if (this.nativeMode && want.typing && this.surface.startNativeStream) {
      let stream: NativeStream | undefined;
      try {
        // The stream starts with what the message may show already (text that came while it waited).
        stream = await this.surface.startNativeStream(this.req.place, {
          text: want.text,
          markdown: true,
          typing: true,
        });
      } catch (err) {
        // The gateway's retries of a rate-limited start are spent: post and edit instead (see step).
        if (isPlatformRateLimit(err)) throw err;
        this.deps.log.info({ err }, 'native streaming refused; using post and edit');
      }
      if (stream) {
        this.slots[index] = this.slot(stream.ref, { text: want.text, markdown: true, typing: true }, stream);
        this.reserveFinal();
        return;
      }
      this.nativeMode = false;
    }
    let sent = want;
    const ref = await this.surface.post(
      this.req.place,
      want,
      this.sendOpts(priority, () => (sent = this.layout()[index] ?? want)),
    );
    this.slots[index] = this.slot(ref, sent);
  }

  /** Brings message `index` to the layout as it is when the call goes out (coalescing). */
  private async sync(index: number, priority: Priority): Promise<void> {
    const slot = this.slots[index];
    const want = this.layout()[index];
    if (!slot || !want || this.inSync(slot, want)) return;
    if (slot.native) {
      if (want.typing) {
        const native = slot.native;
        const sentFrom = slot.appended;
        let shows = want.text;
        await native.append(want.text.slice(sentFrom.length), {
          priority,
          coalesceKey: this.coalesceKey,
          latest: () => {
            const now = this.layout()[index];
            // Only growth is appended; anything else waits for the final stop.
            if (now?.typing && now.text.startsWith(sentFrom)) shows = now.text;
            return shows.slice(sentFrom.length);
          },
        });
        slot.appended = shows;
        slot.sent = { text: slot.appended, markdown: true, typing: true };
        slot.lastInterimAt = this.now;
        return;
      }
      await slot.native.stop(want);
      slot.native = undefined;
      slot.sent = want;
      return;
    }
    if (slot.unstopped) {
      // Only reached with a finished message (see nextIndex): stopping the stream ends it showing
      // exactly `want`; without that method, an edit is the best there is.
      if (this.surface.stopNativeStream) await this.surface.stopNativeStream(slot.ref, want);
      else await this.surface.edit(slot.ref, want);
      slot.unstopped = false;
      slot.sent = want;
      return;
    }
    let sent = want;
    await this.surface.edit(
      slot.ref,
      want,
      this.sendOpts(priority, () => (sent = this.layout()[index] ?? want)),
    );
    slot.sent = sent;
    if (sent.typing) slot.lastInterimAt = this.now;
  }

  // ---- the in-flight record ----------------------------------------------------------------------

  private saveRecord(): void {
    const rec: InflightRecord = {
      surface: this.surface.name,
      place: this.req.place,
      messages: this.slots.map((s) => ({
        ref: s.ref,
        text: s.native ? s.appended : s.sent.text,
        done: !s.native && !s.sent.typing,
        native: s.native || s.unstopped ? true : undefined,
      })),
      retry: this.req.retry,
      owner: this.deps.instanceId,
      updatedAt: this.now,
    };
    const key = inflightKey(this.req.answerKey);
    this.recordChain = this.recordChain
      .then(() => this.deps.store.set(key, recordToJson(rec)))
      .catch((err: unknown) => this.deps.log.warn({ err }, 'could not save the in-flight record'));
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
    const started = Date.now();
    const markReserve = Math.min(3000, deadlineMs / 2);
    const all = (): Promise<unknown> => Promise.allSettled([...this.running.values()].map((r) => r.done));
    await withTimeout(all(), Math.max(0, deadlineMs - markReserve));
    if (this.running.size === 0) return;
    await withTimeout(this.markAllInFlight(reason), Math.max(0, deadlineMs - (Date.now() - started)));
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
