/**
 * SurfacePort on Slack: core's post/edit/notify/stream as Web API calls. `edit` (chat.update, or
 * chat.appendStream while a native stream is live in the thread) is paced by the relay's scheduler
 * with the `edit` budget, finals first. chat.postMessage is paced here, in the port, because core
 * posts from many places outside the relay (thread roots, handoff relays, notices): every post waits
 * for the channel's token, so no caller can exceed Slack's 1/s per channel. chat.update calls the
 * surface makes by itself (`update`: clicked buttons) spend the same workspace budget.
 */
import type { Logger } from 'pino';
import type {
  Actor,
  Attachment,
  MessageRef,
  NativeStream,
  OutMessage,
  Place,
  RateBudget,
  SurfaceLimits,
  SurfacePort,
} from '../../core/surface';
import { spendBudgets } from '../../core/pace';
import { PlatformRateLimitError } from '../../core/surface';
import { z } from 'zod';
import type { StateStore } from '../../state/store';
import { buttonValueFromAction, renderMessage } from './blocks';
import { SlackDirectory } from './home';
import { SlackNativeStream } from './native-stream';
import { Recipients } from './recipients';
import { PacedUpdates } from './updates';
import { call, httpStatus, isMissingMethod, slackErrorCode, translateError, type WebClient } from './web';

/** chat.postMessage: Slack allows about one message a second per channel. */
export const POST_BUDGET = { limit: 1, windowMs: 1_000 } as const;
/** chat.update is Tier 3: about 50 a minute per workspace. */
export const EDIT_BUDGET = { limit: 50, windowMs: 60_000 } as const;
/**
 * Native streaming, per workspace: chat.startStream and chat.stopStream are Tier 2 (about 20 a
 * minute), chat.appendStream Tier 4 (about 100 a minute).
 */
export const STREAM_BUDGETS = {
  start: { limit: 20, windowMs: 60_000 },
  append: { limit: 100, windowMs: 60_000 },
  stop: { limit: 20, windowMs: 60_000 },
} as const;
/** A native stream expires after 5 minutes; the relay rotates before then. */
export const NATIVE_STREAM_TTL_MS = 5 * 60 * 1000;
/** Errors meaning "this workspace has no native streaming": fall back to chat.update for good. */
const STREAM_UNAVAILABLE = new Set([
  'unknown_method',
  'feature_not_enabled',
  'not_allowed_token_type',
  'method_deprecated',
  'not_supported',
]);
/** The workspace's chat.startStream budget is spent right now. */
class StartBudgetShort extends Error {}
/** Longest a core call outside the relay waits for the channel's post budget. */
const MAX_BUDGET_WAIT_MS = 60_000;
/** Tries of one post (or stream start) that Slack answers 429, each after its Retry-After. */
const RATE_LIMITED_ATTEMPTS = 4;

export interface SlackPortOptions {
  client: WebClient;
  store: StateStore;
  log: Logger;
  botToken: string;
  /** The bot's own team (auth.test); used when a place carries none. */
  team: () => string;
}

const tsSchemaOk = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** How many messages of a thread stripButtons looks at (the recent ones carry the buttons). */
const STRIP_SCAN = 100;
const threadMessagesSchema = z.object({
  messages: z
    .array(z.object({ ts: z.string(), text: z.string().optional(), bot_id: z.string().optional(), blocks: z.array(z.record(z.unknown())).optional() }).passthrough())
    .optional(),
});

/** The blocks without the bridge's buttons of `actions`; undefined when none was there. */
function withoutButtons(blocks: Array<Record<string, unknown>>, actions: string[]): Array<Record<string, unknown>> | undefined {
  let changed = false;
  const out: Array<Record<string, unknown>> = [];
  for (const b of blocks) {
    if (b.type !== 'actions' || !Array.isArray(b.elements)) {
      out.push(b);
      continue;
    }
    const kept = (b.elements as Array<{ action_id?: string; value?: string }>).filter((el) => {
      const routed = el.action_id ? buttonValueFromAction(el.action_id, el.value) : undefined;
      const drop = routed !== undefined && actions.includes(routed.a);
      if (drop) changed = true;
      return !drop;
    });
    if (kept.length > 0) out.push({ ...b, elements: kept });
  }
  return changed ? out : undefined;
}

export class SlackPort implements SurfacePort {
  readonly name = 'slack' as const;
  readonly limits: SurfaceLimits = { maxMessageLength: 3_000, maxFormFields: 100 };
  /** Workspaces where native streaming was refused: chat.update from then on. */
  private readonly noNativeStream = new Set<string>();
  /** Who a thread's answer is for (chat.startStream needs a recipient outside DMs), in the store. */
  private readonly recipients: Recipients;
  /** Per channel post budget: Slack said 429, nothing is posted there before this time (Retry-After). */
  private readonly postPausedUntil = new Map<string, number>();
  /** Per thread: native streams this process has live there, with when each expires. */
  private readonly liveStreams = new Map<string, Map<string, number>>();
  private readonly updates: PacedUpdates;

  constructor(private readonly opts: SlackPortOptions) {
    this.recipients = new Recipients(opts.store, opts.log);
    this.updates = new PacedUpdates({
      client: opts.client,
      store: opts.store,
      log: opts.log,
      budget: (ref) => this.editBudget(ref.place),
    });
  }

  private team(place: Place): string {
    return place.workspace || this.opts.team();
  }

  /** A user spoke in `place`: the recipient of the thread's answers (kept in the store). */
  async noteRecipient(place: Place, userId: string): Promise<void> {
    await this.recipients.note(this.team(place), place, userId);
  }

  private threadKey(place: Place): string {
    return `${this.team(place)}:${place.channel}:${place.thread ?? ''}`;
  }

  /** True while this process streams natively in the thread (the relay's edits there are appends). */
  private streamingIn(place: Place): boolean {
    const live = this.liveStreams.get(this.threadKey(place));
    if (!live) return false;
    const now = Date.now();
    for (const [ts, expiresAt] of live) if (expiresAt <= now) live.delete(ts);
    if (live.size === 0) this.liveStreams.delete(this.threadKey(place));
    return live.size > 0;
  }

  private markLive(place: Place, ts: string, expiresAt: number): () => void {
    const key = this.threadKey(place);
    const live = this.liveStreams.get(key) ?? new Map<string, number>();
    live.set(ts, expiresAt);
    this.liveStreams.set(key, live);
    return () => {
      const l = this.liveStreams.get(key);
      l?.delete(ts);
      if (l && l.size === 0) this.liveStreams.delete(key);
    };
  }

  private editBudget(place: Place): RateBudget {
    return { key: `slack:${this.team(place)}:chat.update`, ...EDIT_BUDGET };
  }

  /** A native-streaming method's workspace budget. */
  streamBudget(kind: keyof typeof STREAM_BUDGETS, place: Place): RateBudget {
    const method = { start: 'chat.startStream', append: 'chat.appendStream', stop: 'chat.stopStream' }[kind];
    return { key: `slack:${this.team(place)}:${method}`, ...STREAM_BUDGETS[kind] };
  }

  budgets(op: 'post' | 'edit', place: Place): RateBudget[] {
    // Posts are paced inside post() (see above): a budget here would spend the token twice.
    if (op === 'post') return [];
    // The relay's edits of a live native stream are chat.appendStream calls (Tier 4), and the stop
    // that ends it spends its own Tier 2 budget inside stop(): neither is a chat.update. A thread
    // holds one answer at a time, so while a stream is live there the relay's edits are its appends.
    if (place.thread && this.streamingIn(place)) return [this.streamBudget('append', place)];
    return [this.editBudget(place)];
  }

  /**
   * chat.update of a message outside the relay (a clicked button replacing its message), on the
   * workspace's chat.update budget; updates of one message waiting for a token coalesce.
   */
  update(ref: MessageRef, msg: OutMessage): Promise<void> {
    return this.updates.update(ref, msg);
  }

  /** The surface stops: updates still waiting for a token are dropped (they fail). */
  close(): void {
    this.updates.close();
  }

  /** The channel's post budget: every post paces itself on it (the relay's scheduler does not). */
  postBudget(place: Place): RateBudget {
    return { key: `slack:${this.team(place)}:postMessage:${place.channel}`, ...POST_BUDGET };
  }

  /** Like spendBudgets, but also waits out a pause set by a 429 on this channel while waiting. */
  private async pacePost(place: Place): Promise<void> {
    const b = this.postBudget(place);
    const deadline = Date.now() + MAX_BUDGET_WAIT_MS;
    for (;;) {
      const paused = (this.postPausedUntil.get(b.key) ?? 0) - Date.now();
      if (paused > 0) {
        if (Date.now() + paused > deadline) throw new PlatformRateLimitError(paused);
        await new Promise((r) => setTimeout(r, paused));
        continue;
      }
      const d = await this.opts.store.takeToken(b.key, b.limit, b.windowMs);
      if (d.granted) return;
      if (Date.now() + d.retryInMs > deadline) throw new PlatformRateLimitError(d.retryInMs);
      await new Promise((r) => setTimeout(r, Math.max(5, d.retryInMs)));
    }
  }

  /**
   * A paced call that starts a message in the channel. On a 429 the channel's posts pause for
   * Retry-After and the call is tried again: core posts thread roots and notices from many places
   * outside the relay's scheduler, and a root lost to a 429 would lose the user's whole question.
   */
  private async pacedPost<T>(place: Place, fn: () => Promise<T>): Promise<T> {
    const key = this.postBudget(place).key;
    for (let attempt = 1; ; attempt++) {
      await this.pacePost(place);
      try {
        return await fn();
      } catch (err) {
        const e = translateError(err);
        if (!(e instanceof PlatformRateLimitError) || attempt >= RATE_LIMITED_ATTEMPTS) throw e;
        this.postPausedUntil.set(key, Math.max(this.postPausedUntil.get(key) ?? 0, Date.now() + e.retryAfterMs));
        if (this.postPausedUntil.size > 10_000) this.postPausedUntil.delete(this.postPausedUntil.keys().next().value as string);
        this.opts.log.warn({ channel: place.channel, retryAfterMs: e.retryAfterMs, attempt }, 'slack: post rate limited, waiting Retry-After');
      }
    }
  }

  async post(place: Place, msg: OutMessage): Promise<MessageRef> {
    let ref: MessageRef | undefined;
    const hasBody = msg.text.length > 0 || !msg.file || (msg.cards?.length ?? 0) > 0 || (msg.buttons?.length ?? 0) > 0;
    if (hasBody) {
      ref = await this.pacedPost(place, () => this.postMessage(place, msg));
    }
    if (msg.file) {
      const fileId = await this.upload(place, msg);
      ref ??= { place, id: fileId };
    }
    return ref!;
  }

  private async postMessage(place: Place, msg: OutMessage): Promise<MessageRef> {
    const { text, blocks } = renderMessage(msg);
    const res = await call(() =>
      this.opts.client.chat.postMessage({
        channel: place.channel,
        text,
        blocks: blocks as never,
        ...(place.thread ? { thread_ts: place.thread } : {}),
        unfurl_links: false,
        unfurl_media: false,
      }),
    );
    if (!tsSchemaOk(res.ts)) throw new Error('chat.postMessage answered without ts');
    return { place, id: res.ts };
  }

  private async upload(place: Place, msg: OutMessage): Promise<string> {
    const file = msg.file!;
    const res = await call(() =>
      this.opts.client.filesUploadV2(
        place.thread
          ? { channel_id: place.channel, thread_ts: place.thread, file: file.data, filename: file.name, title: file.title ?? file.name }
          : { channel_id: place.channel, file: file.data, filename: file.name, title: file.title ?? file.name },
      ),
    );
    const first = (res as { files?: Array<{ files?: Array<{ id?: string }> }> }).files?.[0]?.files?.[0]?.id;
    return first ?? `file:${file.name}`;
  }

  async edit(ref: MessageRef, msg: OutMessage): Promise<void> {
    const { text, blocks } = renderMessage(msg);
    await call(() => this.opts.client.chat.update({ channel: ref.place.channel, ts: ref.id, text, blocks: blocks as never }));
  }

  async startThread(place: Place, root: OutMessage, _title: string): Promise<{ thread: Place; root: MessageRef }> {
    // Handoff targets may name no workspace: the thread's place must carry the one events will.
    const channelPlace: Place = { surface: 'slack', workspace: this.team(place), channel: place.channel };
    const ref = await this.pacedPost(channelPlace, () => this.postMessage(channelPlace, root));
    const thread: Place = { ...channelPlace, thread: ref.id };
    await this.recipients.adopt(this.team(thread), thread).catch((err: unknown) => {
      // Only native streaming needs it, and that falls back to chat.update without.
      this.opts.log.warn({ err }, 'slack: storing the thread recipient failed');
    });
    return { thread, root: ref };
  }

  async notify(place: Place, user: Actor, msg: OutMessage): Promise<void> {
    const { text, blocks } = renderMessage(msg);
    try {
      await call(() =>
        this.opts.client.chat.postEphemeral({
          channel: place.channel,
          user: user.id,
          text,
          blocks: blocks as never,
          ...(place.thread ? { thread_ts: place.thread } : {}),
        }),
      );
    } catch (err) {
      if (err instanceof PlatformRateLimitError) throw err;
      // Ephemerals fail where the bot is not a member; a notice is not worth failing the caller.
      this.opts.log.warn({ code: slackErrorCode(err) ?? String(err), channel: place.channel }, 'slack: ephemeral message failed');
    }
  }

  mention(user: Actor): string {
    return `<@${user.id}>`;
  }

  /** Permalinks, channel names and membership for tickets and the App Home (see home.ts). */
  private directoryCache: SlackDirectory | undefined;
  private get directory(): SlackDirectory {
    return (this.directoryCache ??= new SlackDirectory(this.opts.client, this.opts.log));
  }

  permalink(ref: MessageRef): Promise<string | undefined> {
    return this.directory.permalink(ref);
  }

  channelName(place: Place): Promise<string | undefined> {
    return this.directory.channelName(place);
  }

  isMember(channel: Place, userId: string): Promise<boolean | undefined> {
    return this.directory.isMember(channel, userId);
  }

  async stripButtons(thread: Place, actions: string[]): Promise<void> {
    if (!thread.thread) return;
    const res = await call(() => this.opts.client.conversations.replies({ channel: thread.channel, ts: thread.thread!, limit: STRIP_SCAN }));
    for (const m of threadMessagesSchema.parse(res).messages ?? []) {
      if (!m.bot_id || !m.blocks) continue;
      const blocks = withoutButtons(m.blocks, actions);
      if (!blocks) continue;
      await spendBudgets(this.opts.store, [this.editBudget(thread)]);
      await call(() => this.opts.client.chat.update({ channel: thread.channel, ts: m.ts, text: m.text ?? '', blocks: blocks as never }));
    }
  }

  async fetchAttachment(att: Attachment): Promise<Buffer> {
    const url = att.url ?? att.id;
    if (!/^https?:\/\//.test(url)) throw new Error(`attachment ${att.name} has no download URL`);
    const res = await fetch(url, {
      headers: { Authorization: `Bearer ${this.opts.botToken}` },
      signal: AbortSignal.timeout(30_000),
    });
    if (!res.ok) throw new Error(`Slack refused the download of ${att.name} (HTTP ${res.status})`);
    // Without files:read Slack answers 200 with its sign-in page instead of the file.
    const type = res.headers.get('content-type') ?? '';
    if (type.startsWith('text/html') && !(att.mime ?? '').startsWith('text/html')) {
      throw new Error(`Slack did not hand out ${att.name}: is the files:read scope granted?`);
    }
    return Buffer.from(await res.arrayBuffer());
  }

  async startNativeStream(place: Place, first: OutMessage): Promise<NativeStream | undefined> {
    const team = this.team(place);
    if (!place.thread || this.noNativeStream.has(team)) return undefined;
    const recipient = place.channel.startsWith('D') ? undefined : await this.recipients.forThread(team, place);
    const startBudget = this.streamBudget('start', place);
    let ts: string;
    // Never waited for: a short Tier 2 budget means chat.update for this answer, which is better than
    // holding its first words back.
    const takeStart = async (): Promise<void> => {
      const d = await this.opts.store.takeToken(startBudget.key, startBudget.limit, startBudget.windowMs);
      if (!d.granted) throw new StartBudgetShort();
    };
    try {
      // Before the post pace: a short budget must not spend the channel's post token (the post that
      // replaces the stream would then wait a whole post interval for the next).
      await takeStart();
      let retry = false;
      // A stream starts a message in the channel: it shares the channel's post pace (and Retry-After).
      const res = await this.pacedPost(place, async () => {
        // A retry after a 429 is another call on the Tier 2 budget.
        if (retry) await takeStart();
        retry = true;
        return this.opts.client.apiCall('chat.startStream', {
          channel: place.channel,
          thread_ts: place.thread,
          ...(first.text.length > 0 ? { markdown_text: first.text } : {}),
          ...(recipient ? { recipient_user_id: recipient, recipient_team_id: team } : {}),
        });
      });
      const started = (res as { ts?: unknown }).ts;
      if (!tsSchemaOk(started)) throw new Error('chat.startStream answered without ts');
      ts = started;
    } catch (err) {
      if (err instanceof StartBudgetShort) {
        this.opts.log.debug({ team }, 'slack: chat.startStream budget spent, using chat.update for this answer');
        return undefined;
      }
      const e = translateError(err);
      if (e instanceof PlatformRateLimitError) throw e;
      const code = slackErrorCode(err);
      if ((code && STREAM_UNAVAILABLE.has(code)) || isMissingMethod(err)) {
        this.noNativeStream.add(team);
        this.opts.log.info({ team, code: code ?? `HTTP ${httpStatus(err)}` }, 'slack: native streaming unavailable, using chat.update');
      } else {
        this.opts.log.warn({ code: code ?? String(err) }, 'slack: chat.startStream failed, using chat.update for this answer');
      }
      return undefined;
    }
    const expiresAt = Date.now() + NATIVE_STREAM_TTL_MS;
    const settled = this.markLive(place, ts, expiresAt);
    return new SlackNativeStream(
      {
        client: this.opts.client,
        store: this.opts.store,
        stopBudget: this.streamBudget('stop', place),
        update: (ref, msg) => this.update(ref, msg),
        settled,
      },
      { place, id: ts },
      first.text,
      expiresAt,
    );
  }

  /**
   * Finish a native stream another process left open (it died mid-answer): stop the stream, then
   * make the message show exactly `final` with chat.update, since what the dead process last
   * appended is not known here. When the stream is gone already, the chat.update alone does it.
   * Like `edit`, the caller spends `budgets('edit')` for the chat.update; the stop spends its own
   * Tier 2 budget here.
   */
  async stopNativeStream(ref: MessageRef, final: OutMessage): Promise<void> {
    try {
      await spendBudgets(this.opts.store, [this.streamBudget('stop', ref.place)]);
      await call(() => this.opts.client.apiCall('chat.stopStream', { channel: ref.place.channel, ts: ref.id }));
    } catch (err) {
      if (err instanceof PlatformRateLimitError) throw err;
      this.opts.log.info({ code: slackErrorCode(err) ?? String(err) }, 'slack: stream already over, finishing the message with chat.update');
    }
    this.liveStreams.get(this.threadKey(ref.place))?.delete(ref.id);
    await this.edit(ref, final);
  }
}
