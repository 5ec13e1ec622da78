/**
 * TestSurface: an in-memory SurfacePort for core tests (the port is ours, so this is no mock of a
 * platform). It keeps every message's current state and the full history of calls with timestamps.
 *
 * - `limits`: configurable `maxMessageLength` / `maxFormFields`.
 * - `budget: { post?, edit?, append? }`: the surface's own gateway (like Slack's and Discord's) spends
 *   these before each call (keyed per workspace like Slack's per-team tiers) with a BudgetScheduler
 *   on `store` (an in-memory one unless given); unlimited unless configured. `scheduler` is it; it
 *   also retries calls refused for rate, as the platforms' gateways do.
 * - `enforce: { post?, edit?, append? }`: the platform's real limit, a sliding window per workspace.
 *   A call beyond it is refused with PlatformRateLimitError and counted in `violations` (a relay that
 *   respects its budgets must leave it at 0).
 * - `native`: offer native streaming (`startNativeStream`), with `ttlMs` expiry, `fail: 'throw' |
 *   'undefined'` to test fallbacks; streams are recorded in `nativeStreams`.
 * - `latencyMs`: each platform call takes this long (a real wait), so calls overlap as in life.
 * - `inFlight` / `maxInFlightPerMessage`: how many edits of one message ran at once.
 * - `startThread` makes a new thread id, `notify` records ephemeral messages, `mention` is `<@id>`.
 * - `changes` emits 'change' after every call, for waitFor (fakes/wait-for.ts).
 */
import { EventEmitter } from 'node:events';
import {
  PlatformRateLimitError,
  type Actor,
  type Attachment,
  type MessageRef,
  type NativeStream,
  type OutMessage,
  type Place,
  type Priority,
  type RateBudget,
  type SendOptions,
  type SurfaceLimits,
  type SurfaceName,
  type SurfacePort,
  type BudgetPort,
  type DirectoryPort,
  type StreamingPort,
} from '../../src/core/surface';
import { NO_DIRECTORY, NO_STATUS } from '../../src/core/capabilities';
import { BudgetScheduler } from '../../src/surfaces/budgets/scheduler';
import { withoutSpanMarks } from '../../src/core/text/untrusted';
import { SqliteStore } from '../../src/state/sqlite-store';
import type { StateStore } from '../../src/state/store';

/** The name a TestSurface goes by unless told otherwise: any name of the list works, core never branches on it. */
export const TEST_SURFACE: SurfaceName = 'shell';

export interface WindowLimit {
  limit: number;
  windowMs: number;
}

export interface TestSurfaceOptions {
  maxMessageLength?: number;
  maxFormFields?: number;
  budget?: { post?: WindowLimit; edit?: WindowLimit; append?: WindowLimit };
  /** Where the budgets live (several surfaces on one store share them). */
  store?: StateStore;
  enforce?: { post?: WindowLimit; edit?: WindowLimit; append?: WindowLimit };
  native?: { ttlMs: number; fail?: 'throw' | 'undefined' };
  latencyMs?: number;
  /** Retry-After handed out on a refusal. */
  retryAfterMs?: number;
  now?: () => number;
  /** The surface name core sees (default TEST_SURFACE). */
  name?: SurfaceName;
  /** How long an answer's first message waits for its first words (SurfacePort.firstWordsWaitMs). */
  firstWordsWaitMs?: number;
}

export interface CallRecord {
  at: number;
  op: 'post' | 'edit' | 'notify' | 'startThread' | 'nativeStart' | 'append' | 'stop';
  ref?: MessageRef;
  place?: Place;
  msg?: OutMessage;
  text?: string;
  refused?: boolean;
}

export interface TestMessage {
  ref: MessageRef;
  /** The message's current state as the platform shows it. */
  current: OutMessage;
  /** Every state it had, oldest first. */
  versions: OutMessage[];
  native?: boolean;
}

export interface TestNativeStream extends NativeStream {
  rawAppend(text: string): Promise<void>;
  rawStop(finalMessage?: OutMessage): Promise<void>;
  startedAt: number;
  stoppedAt?: number;
  appended: string;
  finalMessage?: OutMessage;
}

export class TestSurface implements SurfacePort, BudgetPort {
  readonly name: SurfaceName;
  readonly budgets: BudgetPort = this;
  readonly status = NO_STATUS;
  /** What it can tell of channels: members (`members`) and group mentions; a test may replace any lookup. */
  readonly directory: DirectoryPort = {
    ...NO_DIRECTORY,
    isMember: (channel, userId) => this.isMember(channel, userId),
    mentionGroup: (id) => this.mentionGroup(id),
  };
  readonly limits: SurfaceLimits;
  readonly calls: CallRecord[] = [];
  /** Emits 'change' after every call: pass it to waitFor (fakes/wait-for.ts). */
  readonly changes = new EventEmitter();
  readonly messages = new Map<string, TestMessage>();
  readonly notices: Array<{ place: Place; user: Actor; msg: OutMessage }> = [];
  readonly nativeStreams: TestNativeStream[] = [];
  violations = 0;
  maxInFlightPerMessage = 0;
  startNativeStream?: (place: Place, first: OutMessage) => Promise<NativeStream | undefined>;
  readonly firstWordsWaitMs: number;

  private readonly opts: TestSurfaceOptions;
  private readonly now: () => number;
  private readonly windows = new Map<string, number[]>();
  private readonly inFlight = new Map<string, number>();
  private nextId = 1;
  private nextThread = 1;
  private gateway?: { scheduler: BudgetScheduler; ownStore?: StateStore };

  constructor(opts: TestSurfaceOptions = {}) {
    this.opts = opts;
    this.name = opts.name ?? TEST_SURFACE;
    this.now = opts.now ?? Date.now;
    this.limits = { maxMessageLength: opts.maxMessageLength ?? 3000, maxFormFields: opts.maxFormFields ?? 100 };
    if (opts.native) this.startNativeStream = (place, first) => this.nativeStart(place, first);
    this.firstWordsWaitMs = opts.firstWordsWaitMs ?? 0;
  }

  /**
   * Native streaming when offered (`native`, or a subclass's startNativeStream): read when asked, so a
   * subclass's replacements count. A stream left open is stopped by a subclass's stopNativeStream
   * where it has one, else edited (as a surface without that method would).
   */
  get streaming(): StreamingPort | undefined {
    const start = this.startNativeStream;
    if (!start) return undefined;
    const own = this as { stopNativeStream?: StreamingPort['stopNativeStream'] };
    return {
      startNativeStream: (place, first) => start(place, first),
      stopNativeStream: (ref, final, opts) =>
        own.stopNativeStream ? own.stopNativeStream(ref, final, opts) : this.edit(ref, final),
    };
  }

  /**
   * The gateway's scheduler, made on first use: it spends the configured budgets and, like the
   * platforms' gateways, retries a call the platform refused for rate (Retry-After).
   */
  get scheduler(): BudgetScheduler {
    if (!this.gateway) {
      const ownStore = this.opts.store ? undefined : new SqliteStore(':memory:');
      const store = this.opts.store ?? ownStore!;
      this.gateway = { scheduler: new BudgetScheduler({ store }), ownStore };
    }
    return this.gateway.scheduler;
  }

  /** Stops the gateway (waiting calls fail) and closes its own store. */
  async close(): Promise<void> {
    this.gateway?.scheduler.close();
    await this.gateway?.ownStore?.close();
  }

  budgetFor(op: 'post' | 'edit' | 'append', place: Place): RateBudget[] {
    const b = this.opts.budget?.[op];
    return b ? [{ key: `test:${op}:${place.workspace}`, limit: b.limit, windowMs: b.windowMs }] : [];
  }

  /** True while a native stream is live in the place's thread (its edits are appends). */
  private streamingIn(place: Place): boolean {
    return this.nativeStreams.some((s) => s.ref.place.thread === place.thread && s.stoppedAt === undefined);
  }

  reserveFinal(place: Place, holder: string): () => void {
    const op = place.thread && this.streamingIn(place) && this.opts.budget?.append ? 'append' : 'edit';
    return this.scheduler.expectFinal(this.budgetFor(op, place), holder);
  }

  promote(coalesceKey: string): void {
    this.scheduler.promote(coalesceKey);
  }

  /** The one outbound path: every call spends its budget here first (and 429s are retried here). */
  outbound<T>(
    op: 'post' | 'edit' | 'append',
    place: Place,
    opts: { priority?: Priority; coalesceKey?: string },
    fn: () => Promise<T>,
  ): Promise<T> {
    return this.scheduler.run(
      this.budgetFor(op, place),
      opts.priority ?? 'final',
      fn,
      opts.coalesceKey === undefined ? {} : { coalesceKey: opts.coalesceKey },
    );
  }

  post(place: Place, msg: OutMessage, opts: SendOptions = {}): Promise<MessageRef> {
    return this.outbound('post', place, opts, () => this.rawPost(place, opts.latest ? opts.latest() : msg));
  }

  private async rawPost(place: Place, given: OutMessage): Promise<MessageRef> {
    const msg = asShown(given);
    await this.platformCall('post', place);
    const ref: MessageRef = { place, id: String(this.nextId++) };
    this.messages.set(ref.id, { ref, current: msg, versions: [msg] });
    this.record({ op: 'post', ref, place, msg });
    return ref;
  }

  edit(ref: MessageRef, msg: OutMessage, opts: SendOptions = {}): Promise<void> {
    return this.outbound('edit', ref.place, opts, () => this.rawEdit(ref, opts.latest ? opts.latest() : msg));
  }

  private async rawEdit(ref: MessageRef, given: OutMessage): Promise<void> {
    const msg = asShown(given);
    const m = this.messages.get(ref.id);
    if (!m) throw new Error(`edit of unknown message ${ref.id}`);
    const n = (this.inFlight.get(ref.id) ?? 0) + 1;
    this.inFlight.set(ref.id, n);
    this.maxInFlightPerMessage = Math.max(this.maxInFlightPerMessage, n);
    try {
      await this.platformCall('edit', ref.place);
    } finally {
      this.inFlight.set(ref.id, (this.inFlight.get(ref.id) ?? 1) - 1);
    }
    m.current = msg;
    m.versions.push(msg);
    this.record({ op: 'edit', ref, msg });
  }

  async startThread(place: Place, root: OutMessage, _title: string): Promise<{ thread: Place; root: MessageRef }> {
    const rootRef = await this.post({ ...place, thread: undefined }, root);
    const thread: Place = { ...place, thread: `t${this.nextThread++}` };
    this.record({ op: 'startThread', place: thread });
    return { thread, root: rootRef };
  }

  async notify(place: Place, user: Actor, msg: OutMessage): Promise<void> {
    this.notices.push({ place, user, msg });
    this.record({ op: 'notify', place, msg });
  }

  mention(user: Actor): string {
    return `<@${user.id}>`;
  }

  /** Channel id -> member ids; a channel not listed cannot tell (undefined), as a platform error would. */
  readonly members = new Map<string, Set<string>>();

  async isMember(channel: Place, userId: string): Promise<boolean | undefined> {
    return this.members.get(channel.channel)?.has(userId);
  }

  /** Slack's shapes: a user group `<!subteam^S…>`, a user `<@U…>`; other ids are another platform's. */
  mentionGroup(id: string): string | undefined {
    if (/^S[A-Z0-9]+$/.test(id)) return `<!subteam^${id}>`;
    return /^[UW][A-Z0-9]+$/.test(id) ? `<@${id}>` : undefined;
  }

  async fetchAttachment(att: Attachment): Promise<Buffer> {
    return Buffer.from(att.id);
  }

  /** Messages posted in a place, in posting order. */
  messagesIn(place: Place): TestMessage[] {
    return [...this.messages.values()].filter(
      (m) => m.ref.place.channel === place.channel && m.ref.place.thread === place.thread,
    );
  }

  /** The current texts of `refs` (or of every message in `place`) joined in order. */
  joinedText(refsOrPlace: MessageRef[] | Place): string {
    const list = Array.isArray(refsOrPlace)
      ? refsOrPlace.map((r) => this.messages.get(r.id)?.current.text ?? '')
      : this.messagesIn(refsOrPlace).map((m) => m.current.text);
    return list.join('');
  }

  count(op: CallRecord['op']): number {
    return this.calls.filter((c) => c.op === op && !c.refused).length;
  }

  private record(rec: Omit<CallRecord, 'at'>): void {
    this.calls.push({ at: this.now(), ...rec });
    this.changes.emit('change');
  }

  /** Latency, then the platform's own rate limit. */
  private async platformCall(op: 'post' | 'edit' | 'append', place: Place): Promise<void> {
    if (this.opts.latencyMs) await new Promise((r) => setTimeout(r, this.opts.latencyMs));
    const rule = this.opts.enforce?.[op];
    if (!rule) return;
    const key = `${op}:${place.workspace}`;
    const now = this.now();
    const log = (this.windows.get(key) ?? []).filter((t) => t > now - rule.windowMs);
    if (log.length >= rule.limit) {
      this.violations++;
      this.windows.set(key, log);
      this.record({ op: op === 'append' ? 'append' : op, place, refused: true });
      const oldest = log[0] ?? now;
      throw new PlatformRateLimitError(this.opts.retryAfterMs ?? Math.max(1, oldest + rule.windowMs - now));
    }
    log.push(now);
    this.windows.set(key, log);
  }

  private async nativeStart(place: Place, first: OutMessage): Promise<NativeStream | undefined> {
    const native = this.opts.native;
    if (!native) return undefined;
    if (native.fail === 'throw') throw new Error('unknown_method');
    if (native.fail === 'undefined') return undefined;
    await this.outbound('post', place, {}, () => this.platformCall('post', place));
    const ref: MessageRef = { place, id: String(this.nextId++) };
    const msg: TestMessage = { ref, current: first, versions: [first], native: true };
    this.messages.set(ref.id, msg);
    const startedAt = this.now();
    const surface = this;
    const stream: TestNativeStream = {
      ref,
      startedAt,
      expiresAt: startedAt + native.ttlMs,
      appended: first.text,
      append(
        text: string,
        o: { priority?: Priority; coalesceKey?: string; latest?: () => string } = {},
      ): Promise<string> {
        return surface.outbound(
          surface.opts.budget?.append ? 'append' : 'edit',
          place,
          { priority: o.priority ?? 'interim', coalesceKey: o.coalesceKey },
          async () => {
            const more = o.latest ? o.latest() : text;
            // Nothing to append is no call (as the Slack gateway does).
            if (more.length === 0) return '';
            await stream.rawAppend(more);
            return more;
          },
        );
      },
      async rawAppend(text: string): Promise<void> {
        if (stream.stoppedAt !== undefined) throw new Error('append after stop');
        if (surface.now() > stream.expiresAt) throw new Error('stream expired');
        await surface.platformCall('append', place);
        stream.appended += text;
        const next: OutMessage = { text: stream.appended, markdown: true, typing: true };
        msg.current = next;
        msg.versions.push(next);
        surface.record({ op: 'append', ref, text });
      },
      stop(finalMessage?: OutMessage): Promise<void> {
        return surface.outbound('edit', place, {}, () => stream.rawStop(finalMessage));
      },
      async rawStop(finalMessage?: OutMessage): Promise<void> {
        if (surface.now() > stream.expiresAt) throw new Error('stream expired');
        await surface.platformCall('edit', place);
        stream.stoppedAt = surface.now();
        stream.finalMessage = finalMessage;
        // The final message replaces what was streamed (the relay relies on it).
        const next: OutMessage = finalMessage ?? { text: stream.appended };
        msg.current = next;
        msg.versions.push(next);
        surface.record({ op: 'stop', ref, msg: next });
      },
    };
    this.nativeStreams.push(stream);
    this.record({ op: 'nativeStart', ref, place, msg: first });
    return stream;
  }
}

/** A message as a surface shows it: untrusted spans' marks gone (their words are text anyway here). */
function asShown(msg: OutMessage): OutMessage {
  return { ...msg, text: withoutSpanMarks(msg.text) };
}
