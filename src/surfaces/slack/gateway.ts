/**
 * The Slack surface's one outbound path. Every Web API call the surface makes to post, edit, stream,
 * upload or show something (relay, handoff relays, button updates, ephemerals, forms, recovery)
 * goes through `SlackGateway`, which owns the workspace's budgets and spends them (GatewayBudgets,
 * ../budgets/): finals and user-visible replies first, then interims in their planned turn. Payloads
 * come already built (blocks.ts): the gateway only decides when, and calls.
 *
 * Budgets (in the state store, so one workspace has one budget across instances):
 * - chat.postMessage: about 1 a second per channel (also paid by chat.startStream and uploads, which
 *   start a message in the channel);
 * - chat.update: Tier 3, 50 a minute per workspace;
 * - chat.startStream / chat.stopStream: Tier 2, 20 a minute; chat.appendStream: Tier 4, 100 a minute;
 * - chat.postEphemeral and views.open: Tier 4, 100 a minute; file uploads: Tier 2, 20 a minute.
 */
import type { Logger } from 'pino';
import type { MessageRef, Place, RateBudget } from '../../core/surface';
import type { StateStore } from '../../state/store';
import { type GatewayCall, GatewayBudgets } from '../budgets/gateway-budgets';
import { call, type WebClient } from './web';
import { HISTORY_LIMITS, type HistoryLimits } from './distribution';

/** chat.postMessage: Slack allows about one message a second per channel. */
export const POST_BUDGET = { limit: 1, windowMs: 1_000 } as const;
/**
 * chat.update is Tier 3: about 50 a minute per workspace, and every edit of the workspace spends it
 * (answers, button and card updates, recovery, a failed stream's finish). Under load an answer on it
 * shows its first words (on its post) and then its final: one step (see FinalsPlan.loadStepMs);
 * a lone answer still grows about once a second.
 */
export const EDIT_BUDGET = { limit: 50, windowMs: 60_000, loadSteps: 1 } as const;
/**
 * Native streaming, per workspace: chat.startStream and chat.stopStream are Tier 2 (about 20 a
 * minute), chat.appendStream Tier 4 (about 100 a minute). Every stream's start claims a fair share
 * of the appends: what the budget holds, split over the streams open now and the starts still
 * possible this minute (5 each when streams start at the full rate for ever; see
 * budgets/stream-shares.ts). An answer's length is not known when it starts, so a stream spends its
 * first appends as soon as the relay allows and the rest further and further apart.
 */
export const STREAM_BUDGETS = {
  start: { limit: 20, windowMs: 60_000 },
  append: { limit: 100, windowMs: 60_000 },
  stop: { limit: 20, windowMs: 60_000 },
} as const;
/** chat.postEphemeral and views.open: Tier 4. Never planned: nothing streams on them. */
export const TIER4_BUDGET = { limit: 100, windowMs: 60_000, plan: false } as const;
/** Tier 3 Web API methods that are not messages (conversations.info): about 50 a minute per workspace. */
export const TIER3_BUDGET = { limit: 50, windowMs: 60_000, plan: false } as const;
/**
 * assistant.threads.setStatus, per channel (a DM): Slack allows about one status a second there.
 * Cosmetic, so never waited for (see assistantStatus).
 */
export const STATUS_BUDGET = { limit: 60, windowMs: 60_000 } as const;
/** File uploads: Tier 2. */
export const UPLOAD_BUDGET = { limit: 20, windowMs: 60_000, plan: false } as const;

/** A message's payload as blocks.ts builds it. */
export interface SlackPayload {
  text: string;
  blocks: unknown[];
}

export interface SlackGatewayOptions {
  /** The Web API client of a workspace (its own token: one per team in OAuth mode, see clients.ts). */
  client: (team: string) => Promise<WebClient>;
  store: StateStore;
  log: Logger;
  /** The workspace of a place (a place that carries none: the token's own team, one-token mode). */
  team: (place: Place) => string;
  /**
   * A message was posted or edited (`edit`) with this payload: the port records the ones that carry
   * buttons (button-records.ts), so nothing is ever read back to find them.
   */
  sent?: (team: string, ref: MessageRef, payload: SlackPayload, edit: boolean) => Promise<void>;
  /** Slack's limits on reading history in this app's distribution (distribution.ts; default distributed). */
  history?: HistoryLimits;
}

export class SlackGateway {
  private readonly budgets: GatewayBudgets;

  constructor(private readonly opts: SlackGatewayOptions) {
    // Four tries of a call Slack answers 429 (each after its Retry-After), then the caller hears it.
    this.budgets = new GatewayBudgets({
      store: opts.store,
      log: opts.log.child({ part: 'slack-gateway' }),
      maxTries: 4,
    });
  }

  close(): void {
    this.budgets.close();
  }

  /** The client of the place's workspace (read when the call goes out, so a refreshed token is used). */
  private web(place: Place): Promise<WebClient> {
    return this.opts.client(this.opts.team(place));
  }

  private run<T>(budgets: RateBudget[], c: GatewayCall, fn: () => Promise<T>): Promise<T> {
    return this.budgets.call(budgets, c, fn);
  }

  /**
   * An answer in flight in `place` will need one final: on chat.update, and while it streams
   * natively (`streaming`) on chat.appendStream too (see SurfacePort.reserveFinal).
   */
  reserveFinal(place: Place, holder: string, streaming: boolean): () => void {
    // A thread holds one answer at a time: while a native stream is live there, the answer's
    // interims are its appends, planned on the append budget. It keeps a chat.update final too: a
    // stream whose append or stop fails is finished with chat.update (stopNativeStream), so the
    // chat.update answers' interims leave that token alone, and share that budget's plan with
    // every answer in flight in the workspace, not only the ones that could not stream.
    const budgets = streaming ? [this.streamBudget('append', place), this.editBudget(place)] : [this.editBudget(place)];
    return this.budgets.reserveFinal(budgets, holder);
  }

  /** The waiting call with this coalesceKey becomes a final (its answer just finished). */
  promote(coalesceKey: string): void {
    this.budgets.promote(coalesceKey);
  }

  /** Answers in flight on budget `key` that still need their final call. */
  finalsAwaited(key: string): number {
    return this.budgets.finalsAwaited(key);
  }

  // ---- budgets ---------------------------------------------------------------------------------

  postBudget(place: Place): RateBudget {
    return { key: `slack:${this.opts.team(place)}:postMessage:${place.channel}`, ...POST_BUDGET };
  }

  editBudget(place: Place): RateBudget {
    return { key: `slack:${this.opts.team(place)}:chat.update`, ...EDIT_BUDGET };
  }

  streamBudget(kind: keyof typeof STREAM_BUDGETS, place: Place): RateBudget {
    const method = { start: 'chat.startStream', append: 'chat.appendStream', stop: 'chat.stopStream' }[kind];
    return { key: `slack:${this.opts.team(place)}:${method}`, ...STREAM_BUDGETS[kind] };
  }

  private tier4(place: Place, method: string): RateBudget {
    return { key: `slack:${this.opts.team(place)}:${method}`, ...TIER4_BUDGET };
  }

  /**
   * Commits to one native stream now, or reports that the workspace cannot carry one more: the
   * stream's chat.stopStream (its final) is reserved first, and only while the stop budget has room
   * for it beside the stops taken within its window and those other live streams await; then one
   * chat.startStream token is taken. A stream whose stop could not be sent for most of a minute
   * would hold its answer's final text back that long; without the reservation, starts (paced by
   * their own budget) outran stops, whose budget is spent later. Never waited for: an answer that
   * finds no room uses chat.update, which is better than holding its first words back. Resolves to
   * the release of the stop's reservation (call it once the stream is stopped or abandoned).
   */
  async reserveStream(place: Place): Promise<(() => void) | undefined> {
    const release = this.budgets.reserveIfRoom([this.streamBudget('stop', place)]);
    if (!release) return undefined;
    // The start claims its fair share of the append budget (see FinalsPlan.started).
    if (await this.budgets.takeStart(this.streamBudget('start', place), this.streamBudget('append', place)))
      return release;
    release();
    return undefined;
  }

  // ---- calls -----------------------------------------------------------------------------------

  /** chat.postMessage; `payload` is read when the call goes out. */
  async postMessage(place: Place, payload: () => SlackPayload, c: GatewayCall = {}): Promise<string> {
    let sent: SlackPayload | undefined;
    const ts = await this.run([this.postBudget(place)], c, async () => {
      sent = payload();
      const { text, blocks } = sent;
      const res = await call(async () =>
        (await this.web(place)).chat.postMessage({
          channel: place.channel,
          text,
          blocks: blocks as never,
          ...(place.thread ? { thread_ts: place.thread } : {}),
          unfurl_links: false,
          unfurl_media: false,
        }),
      );
      if (typeof res.ts !== 'string' || res.ts.length === 0) throw new Error('chat.postMessage answered without ts');
      return res.ts;
    });
    if (sent) await this.opts.sent?.(this.opts.team(place), { place, id: ts }, sent, false);
    return ts;
  }

  /** chat.update; `payload` is read when the call goes out. */
  async update(ref: MessageRef, payload: () => SlackPayload, c: GatewayCall = {}): Promise<void> {
    let sent: SlackPayload | undefined;
    await this.run([this.editBudget(ref.place)], c, async () => {
      sent = payload();
      const { text, blocks } = sent;
      await call(async () =>
        (await this.web(ref.place)).chat.update({
          channel: ref.place.channel,
          ts: ref.id,
          text,
          blocks: blocks as never,
        }),
      );
    });
    if (sent) await this.opts.sent?.(this.opts.team(ref.place), ref, sent, true);
  }

  /** chat.postEphemeral (throws what Slack answers, e.g. not_in_channel). */
  ephemeral(place: Place, user: string, payload: SlackPayload): Promise<void> {
    return this.run([this.tier4(place, 'chat.postEphemeral')], {}, async () => {
      await call(async () =>
        (await this.web(place)).chat.postEphemeral({
          channel: place.channel,
          user,
          text: payload.text,
          blocks: payload.blocks as never,
          ...(place.thread ? { thread_ts: place.thread } : {}),
        }),
      );
    });
  }

  /** views.open: a form must open within the trigger's 3 s, so it is a final. */
  openView(place: Place, triggerId: string, view: unknown): Promise<void> {
    return this.run([this.tier4(place, 'views.open')], {}, async () => {
      await call(async () => (await this.web(place)).views.open({ trigger_id: triggerId, view: view as never }));
    });
  }

  /** files.uploadV2 into the place; resolves to the file id. */
  upload(place: Place, file: { data: Buffer; name: string; title?: string }): Promise<string> {
    const budgets = [this.postBudget(place), { key: `slack:${this.opts.team(place)}:files.upload`, ...UPLOAD_BUDGET }];
    return this.run(budgets, {}, async () => {
      const title = file.title ?? file.name;
      const res = await call(async () =>
        (await this.web(place)).filesUploadV2(
          place.thread
            ? { channel_id: place.channel, thread_ts: place.thread, file: file.data, filename: file.name, title }
            : { channel_id: place.channel, file: file.data, filename: file.name, title },
        ),
      );
      const first = (res as { files?: Array<{ files?: Array<{ id?: string }> }> }).files?.[0]?.files?.[0]?.id;
      return first ?? `file:${file.name}`;
    });
  }

  /**
   * chat.startStream, on the channel's post budget (a stream starts a message there). The caller
   * took the start token (reserveStream); a retry after a 429 goes out on that token (the refused
   * call did not count at Slack).
   */
  startStream(place: Place, args: () => Record<string, unknown>): Promise<unknown> {
    return this.run([this.postBudget(place)], {}, () =>
      call(async () => (await this.web(place)).apiCall('chat.startStream', args())),
    );
  }

  /** chat.appendStream; `text` is read when the call goes out, and the call resolves to it. */
  appendStream(ref: MessageRef, text: () => string, c: GatewayCall = {}): Promise<string> {
    return this.run(
      [this.streamBudget('append', ref.place)],
      { priority: c.priority ?? 'interim', ...(c.coalesceKey ? { coalesceKey: c.coalesceKey } : {}) },
      async () => {
        const more = text();
        if (more.length === 0) return '';
        await call(async () =>
          (await this.web(ref.place)).apiCall('chat.appendStream', {
            channel: ref.place.channel,
            ts: ref.id,
            markdown_text: more,
          }),
        );
        return more;
      },
    );
  }

  /**
   * assistant.threads.setStatus. A status is cosmetic: without tokens of the channel's status budget
   * right now it is skipped (false) rather than delaying the answer it is about. A status takes two
   * tokens in one store call, its own and its clear's (counted from the status: the clear follows
   * with the answer's first words), so a clear (`clear`) takes none: it is sent regardless, since a
   * status left up would say "thinking" over a finished answer.
   */
  async assistantStatus(place: Place, args: Record<string, unknown>, clear: boolean): Promise<boolean> {
    if (!clear) {
      const b = { key: `slack:${this.opts.team(place)}:assistant.setStatus:${place.channel}`, ...STATUS_BUDGET };
      const token = await this.opts.store.takeTokens([{ ...b, count: 2 }]).catch(() => undefined);
      if (!token?.granted) return false;
    }
    await this.run([], {}, () =>
      call(async () => (await this.web(place)).apiCall('assistant.threads.setStatus', args)),
    );
    return true;
  }

  /** users.info (Tier 4, in `team`: the request's workspace): a user's profile, for display names. */
  userInfo(team: string, userId: string): Promise<unknown> {
    const budget = { key: `slack:${team}:users.info`, ...TIER4_BUDGET };
    return this.run([budget], {}, () => call(async () => (await this.opts.client(team)).users.info({ user: userId })));
  }

  /**
   * A Web API method that is not a message (chat.getPermalink, conversations.info and .members,
   * views.publish): it counts against its method's tier per workspace like everything else here, so it
   * goes out on that budget too.
   */
  methodCall(place: Place, method: string, args: Record<string, unknown>, tier: 3 | 4): Promise<unknown> {
    const budget = { key: `slack:${this.opts.team(place)}:${method}`, ...(tier === 4 ? TIER4_BUDGET : TIER3_BUDGET) };
    return this.run([budget], {}, () => call(async () => (await this.web(place)).apiCall(method, args)));
  }

  /**
   * conversations.replies or .history, where reading back is still the only way: one read within the
   * distribution's budget per workspace (distributed: one a minute), at most its 15 messages, and
   * never waited for (undefined: no budget now). No retry either: whatever needed it goes without.
   */
  async historyRead(
    place: Place,
    method: 'conversations.replies' | 'conversations.history',
    args: Record<string, unknown>,
  ): Promise<unknown> {
    const team = this.opts.team(place);
    const h = this.opts.history ?? HISTORY_LIMITS.distributed;
    const token = await this.opts.store.takeToken(`slack:${team}:history`, h.limit, h.windowMs).catch(() => undefined);
    if (!token?.granted) return undefined;
    return call(async () => (await this.web(place)).apiCall(method, { ...args, limit: h.maxMessages }));
  }

  /** chat.stopStream (a final). */
  stopStream(ref: MessageRef, args: Record<string, unknown>): Promise<void> {
    return this.run([this.streamBudget('stop', ref.place)], {}, async () => {
      await call(async () =>
        (await this.web(ref.place)).apiCall('chat.stopStream', { channel: ref.place.channel, ts: ref.id, ...args }),
      );
    });
  }
}
