/**
 * chat.update calls the surface makes outside the relay (a clicked button replacing its message:
 * listing pages, tickets, delete confirmations; a native stream finished by chat.update). They spend
 * the workspace's chat.update budget in the store, the same key the relay's scheduler spends, so the
 * workspace stays within Slack's Tier 3 whoever edits and whichever instance does it.
 *
 * Updates of one message that wait for a token coalesce: only the newest content is sent, so a burst
 * of Next clicks on one listing costs one edit, not one per click. They leave a few tokens of each
 * window to the relay (HEADROOM): a burst of clicks must not hold answers' final edits back a minute.
 */
import type { Logger } from 'pino';
import type { MessageRef, OutMessage, RateBudget } from '../../core/surface';
import { PlatformRateLimitError } from '../../core/surface';
import type { StateStore } from '../../state/store';
import { renderMessage } from './blocks';
import { call, type WebClient } from './web';

/** Calls of one update that Slack answers 429 (each after its Retry-After) before giving up. */
const RATE_LIMITED_ATTEMPTS = 3;
/** Tokens of each chat.update window that button updates leave to the relay's answers. */
export const HEADROOM = 10;
/** A click may wait a whole window (Tier 3 is per minute) and a little more. */
const MAX_WAIT_MS = 75_000;

/** Raised to updates still waiting when the surface stops. */
export class UpdatesClosedError extends Error {
  constructor() {
    super('slack surface stopped before the update was sent');
    this.name = 'UpdatesClosedError';
  }
}

interface Pending {
  msg: OutMessage;
  waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }>;
}

export interface PacedUpdatesOptions {
  client: WebClient;
  store: StateStore;
  log: Logger;
  /** The workspace chat.update budget for the message's place. */
  budget: (ref: MessageRef) => RateBudget;
  /** Longest an update waits for its token. */
  maxWaitMs?: number;
}

export class PacedUpdates {
  /** Per message: the update waiting for its token (newer content replaces older). */
  private readonly pending = new Map<string, Pending>();
  /** Waits in progress: cancelled when the surface stops, so nothing lingers after it. */
  private readonly sleepers = new Set<{ timer: NodeJS.Timeout; cancel: () => void }>();
  private closed = false;

  constructor(private readonly opts: PacedUpdatesOptions) {}

  /** Stop: updates still waiting fail with UpdatesClosedError. */
  close(): void {
    this.closed = true;
    for (const s of this.sleepers) {
      clearTimeout(s.timer);
      s.cancel();
    }
    this.sleepers.clear();
  }

  private sleep(ms: number): Promise<void> {
    if (this.closed) return Promise.reject(new UpdatesClosedError());
    return new Promise<void>((resolve, reject) => {
      const s = {
        timer: setTimeout(() => {
          this.sleepers.delete(s);
          resolve();
        }, ms),
        cancel: () => reject(new UpdatesClosedError()),
      };
      this.sleepers.add(s);
    });
  }

  /** One token of the budget less the relay's headroom, waiting (bounded) while it is spent. */
  private async token(ref: MessageRef): Promise<void> {
    const b = this.opts.budget(ref);
    const limit = Math.max(1, b.limit - HEADROOM);
    const deadline = Date.now() + (this.opts.maxWaitMs ?? MAX_WAIT_MS);
    for (;;) {
      if (this.closed) throw new UpdatesClosedError();
      const d = await this.opts.store.takeToken(b.key, limit, b.windowMs);
      if (d.granted) return;
      if (Date.now() + d.retryInMs > deadline) throw new PlatformRateLimitError(d.retryInMs);
      await this.sleep(Math.max(5, d.retryInMs));
    }
  }

  update(ref: MessageRef, msg: OutMessage): Promise<void> {
    const key = `${ref.place.workspace}:${ref.place.channel}:${ref.id}`;
    const waiting = this.pending.get(key);
    if (waiting) {
      waiting.msg = msg;
      return new Promise<void>((resolve, reject) => waiting.waiters.push({ resolve, reject }));
    }
    const entry: Pending = { msg, waiters: [] };
    this.pending.set(key, entry);
    return this.send(key, ref, entry);
  }

  private async send(key: string, ref: MessageRef, entry: Pending): Promise<void> {
    const detach = (): void => {
      if (this.pending.get(key) === entry) this.pending.delete(key);
    };
    try {
      for (let attempt = 1; ; attempt++) {
        await this.token(ref);
        // From here this call carries `entry.msg`; a later update needs a call (and token) of its own.
        detach();
        const { text, blocks } = renderMessage(entry.msg);
        try {
          await call(() => this.opts.client.chat.update({ channel: ref.place.channel, ts: ref.id, text, blocks: blocks as never }));
          break;
        } catch (err) {
          if (!(err instanceof PlatformRateLimitError) || attempt >= RATE_LIMITED_ATTEMPTS) throw err;
          // A newer update of this message is already queued: it will show newer content than ours.
          if (this.pending.has(key)) break;
          this.opts.log.warn({ channel: ref.place.channel, retryAfterMs: err.retryAfterMs, attempt }, 'slack: chat.update rate limited, waiting Retry-After');
          await this.sleep(err.retryAfterMs);
        }
      }
    } catch (err) {
      detach();
      for (const w of entry.waiters) w.reject(err);
      throw err;
    }
    for (const w of entry.waiters) w.resolve();
  }
}
