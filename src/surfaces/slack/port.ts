/**
 * SurfacePort on Slack: a translator. Core's messages become payloads (blocks.ts) and every call
 * goes out through the surface's gateway (gateway.ts), which owns the workspace's budgets: nothing
 * here waits for a token or retries a 429 itself.
 */
import type { RespondFn } from '@slack/bolt';
import type { Logger } from 'pino';
import type {
  Actor,
  Attachment,
  MessageRef,
  NativeStream,
  OutMessage,
  Person,
  Place,
  SendOptions,
  BudgetPort,
  DirectoryPort,
  StatusPort,
  StreamingPort,
  SurfaceLimits,
  SurfacePort,
} from '../../core/surface';
import { PlatformRateLimitError } from '../../core/surface';
import { z } from 'zod';
import type { StateStore } from '../../state/store';
import { ephemeralResponse, renderMessage } from './blocks';
import { ButtonRecords, withoutButtons } from './button-records';
import { HISTORY_LIMITS, type SlackDistribution } from './distribution';
import { SlackDirectory } from './home';
import { groupMentionToken } from '../mention-token';
import { slackMention } from './safe-text';
import { downloadCapped } from '../download';
import { slackFileHost } from './file-host';
import type { AssistantThreads } from './assistant-api';
import { CardFallback, drewChart } from './card-fallback';
import { SlackGateway } from './gateway';
import { SlackNativeStreams } from './native-streams';
import { UserNames } from './users';
import { slackErrorCode, type WebClient } from './web';
import { singleWorkspaceClients, type TeamClients } from './clients';

export { POST_BUDGET, STREAM_BUDGETS } from './gateway';

export interface SlackPortOptions {
  /** The single-workspace app's client and token (SLACK_BOT_TOKEN); or `clients`, one per workspace. */
  client?: WebClient;
  botToken?: string;
  /** Each workspace's own client and token (OAuth mode). */
  clients?: TeamClients;
  store: StateStore;
  log: Logger;
  /** The token's own team (auth.test, one-token mode); used when a place carries none. */
  team: () => string;
  /** assistant.threads.* (the status shown while an answer is worked on). */
  assistant?: AssistantThreads;
  /**
   * The bridge's own user (auth.test, one-token mode), never one of a channel's agents. In OAuth mode
   * there is none to name: users.info says the bot is a bot, which leaves it out just the same.
   */
  botUserId?: () => string | undefined;
  /** Which of Slack's history limits apply (SLACK_DISTRIBUTION); distributed when not said. */
  distribution?: SlackDistribution;
  /** The bridge's clock (when recording its buttons began; tests move it). */
  now?: () => number;
}

const threadMessagesSchema = z.object({
  messages: z
    .array(
      z
        .object({
          ts: z.string(),
          text: z.string().optional(),
          bot_id: z.string().optional(),
          blocks: z.array(z.record(z.unknown())).optional(),
        })
        .passthrough(),
    )
    .optional(),
});

/** Slack has every capability: the port hands itself over as each. */
export class SlackPort implements SurfacePort, StreamingPort, BudgetPort, DirectoryPort, StatusPort {
  readonly name = 'slack' as const;
  readonly streaming: StreamingPort = this;
  readonly budgets: BudgetPort = this;
  readonly directory: DirectoryPort = this;
  readonly status: StatusPort = this;
  readonly limits: SurfaceLimits = { maxMessageLength: 3_000, maxFormFields: 100 };
  /** The surface's one outbound path. */
  readonly gateway: SlackGateway;
  /** Display names, and who is a bot (users.info, cached). */
  readonly users: UserNames;
  /** Native streaming: where it is refused, live, and each stream's reserved stop. */
  private readonly streams: SlackNativeStreams;
  /** Carousels of cards, or sections where the workspace refuses cards. */
  private readonly cards: CardFallback;
  /**
   * An answer's first message (a post, or a native stream's start) waits up to this long for the
   * answer's first words. The post or start costs its own budget, not the workspace's chat.update or
   * append budget: text it carries is a partial the reader sees for free, where an interim would take
   * a token the answers in flight need for their finals (30 answers at once in a workspace could
   * afford one edit for only half of them). Short and bounded: the user still sees the bot is on it
   * within a moment.
   */
  readonly firstWordsWaitMs = 500;

  /** The Web API client and token of each workspace. */
  readonly clients: TeamClients;
  /** The bridge's messages that carry its buttons, per thread (stripButtons edits them, reads nothing back). */
  private readonly buttons: ButtonRecords;

  constructor(private readonly opts: SlackPortOptions) {
    this.clients = opts.clients ?? singleWorkspaceClients(opts.client as WebClient, opts.botToken ?? '');
    this.cards = new CardFallback(opts.store, opts.log);
    this.buttons = new ButtonRecords(opts.store, opts.log, opts.now);
    this.gateway = new SlackGateway({
      client: (team) => this.clients.client(team),
      store: opts.store,
      log: opts.log,
      team: (p) => this.team(p),
      sent: (team, ref, payload, edit) => this.buttons.note(team, ref, payload, edit),
      history: HISTORY_LIMITS[opts.distribution ?? 'distributed'],
    });
    this.users = new UserNames(this.gateway, opts.store, opts.log);
    this.streams = new SlackNativeStreams({
      gateway: this.gateway,
      store: opts.store,
      cards: this.cards,
      log: opts.log,
      team: (p) => this.team(p),
      edit: (ref, msg) => this.edit(ref, msg),
      stopped: (ref, payload) => this.buttons.note(this.team(ref.place), ref, payload, true),
    });
  }

  private team(place: Place): string {
    return place.workspace || this.opts.team();
  }

  /**
   * A workspace left: what this process learnt of it goes (its users' and channels' lookups are in
   * its part of the store, users.ts and home.ts, and go with it there).
   */
  forgetWorkspace(team: string): void {
    this.cards.forget(team);
    this.streams.forget(team);
    this.opts.assistant?.forget(team);
  }

  /** "is thinking…" in an assistant (or channel) thread while an answer is worked on; '' clears it. */
  async setStatus(place: Place, status: string): Promise<void> {
    await this.opts.assistant?.setStatus(place, status);
  }

  reserveFinal(place: Place, holder: string): () => void {
    return this.gateway.reserveFinal(place, holder, Boolean(place.thread) && this.streams.streamingIn(place));
  }

  promote(coalesceKey: string): void {
    this.gateway.promote(coalesceKey);
  }

  /**
   * chat.update of a message outside the relay (a clicked button replacing its message): a reply
   * the user waits for; updates of one message still waiting for budget coalesce (newest wins).
   */
  update(ref: MessageRef, msg: OutMessage): Promise<void> {
    return this.edit(ref, msg, { coalesceKey: `update:${ref.place.channel}:${ref.id}` });
  }

  /** The surface stops: calls still waiting for budget fail. */
  close(): void {
    this.gateway.close();
  }

  async post(place: Place, msg: OutMessage, opts: SendOptions = {}): Promise<MessageRef> {
    let ref: MessageRef | undefined;
    const hasBody = msg.text.length > 0 || !msg.file || (msg.cards?.length ?? 0) > 0 || (msg.buttons?.length ?? 0) > 0;
    // A chart Slack draws itself stands in for its PNG; a workspace that refused the block gets the PNG.
    let drawn = false;
    if (hasBody) {
      const latest = opts.latest;
      const ts = await this.cards.send(
        this.team(place),
        () => (latest ? latest() : msg),
        (render) =>
          this.gateway.postMessage(
            place,
            () => {
              const r = render();
              drawn = drewChart(r);
              return r;
            },
            opts,
          ),
      );
      ref = { place, id: ts };
    }
    if (msg.file && !(msg.chart && drawn)) {
      const fileId = await this.gateway.upload(place, msg.file);
      ref ??= { place, id: fileId };
    }
    return ref!;
  }

  async edit(ref: MessageRef, msg: OutMessage, opts: SendOptions = {}): Promise<void> {
    const latest = opts.latest;
    await this.cards.send(
      this.team(ref.place),
      () => (latest ? latest() : msg),
      (render) => this.gateway.update(ref, render, opts),
    );
  }

  /** A modal opened with an interaction's trigger. */
  openView(place: Place, triggerId: string, view: unknown): Promise<void> {
    return this.gateway.openView(place, triggerId, view);
  }

  async startThread(place: Place, root: OutMessage, _title: string): Promise<{ thread: Place; root: MessageRef }> {
    // Handoff targets may name no workspace: the thread's place must carry the one events will.
    const channelPlace: Place = { surface: 'slack', workspace: this.team(place), channel: place.channel };
    const ref = await this.post(channelPlace, root);
    return { thread: { ...channelPlace, thread: ref.id }, root: ref };
  }

  async notify(place: Place, user: Actor, msg: OutMessage): Promise<void> {
    await this.ephemeral(place, user.id, msg);
  }

  /**
   * The one way an ephemeral message is sent (core's notices and every ephemeral reply), through the
   * gateway. Where chat.postEphemeral fails (the bot is not in the channel: a DM between people, a
   * private channel), a command's or button's `respond` (its response_url) still reaches the user;
   * without one, a notice is not worth failing the caller, so the failure is logged. A rate limit is
   * the gateway's to wait out.
   */
  async ephemeral(place: Place, user: string, msg: OutMessage, respond?: RespondFn): Promise<void> {
    let rendered = renderMessage(msg, await this.cards.layout(this.team(place)));
    try {
      await this.cards.send(
        this.team(place),
        () => msg,
        (render) => {
          rendered = render();
          return this.gateway.ephemeral(place, user, rendered);
        },
      );
      return;
    } catch (err) {
      if (err instanceof PlatformRateLimitError) throw err;
      if (!respond) {
        this.opts.log.warn(
          { code: slackErrorCode(err) ?? String(err), channel: place.channel },
          'slack: ephemeral message failed',
        );
        return;
      }
      this.opts.log.debug({ code: slackErrorCode(err) }, 'slack: postEphemeral failed, using response_url');
    }
    await respond(ephemeralResponse(rendered, false));
  }

  mention(user: Actor): string {
    // A token blocks.ts/safe-text.ts turn into a real mention: a raw `<@U…>` would be escaped.
    return slackMention(user.id);
  }

  mentionGroup(id: string): string | undefined {
    if (/^S[A-Z0-9]+$/.test(id)) return groupMentionToken(id);
    return /^[UW][A-Z0-9]+$/.test(id) ? slackMention(id) : undefined;
  }

  /** Permalinks, channel names and membership for tickets and the App Home (see home.ts). */
  private directoryCache: SlackDirectory | undefined;
  private get lookups(): SlackDirectory {
    if (!this.directoryCache) this.directoryCache = new SlackDirectory(this.gateway, this.opts.store, this.opts.log);
    return this.directoryCache;
  }

  permalink(ref: MessageRef): Promise<string | undefined> {
    return this.lookups.permalink(ref);
  }

  channelName(place: Place): Promise<string | undefined> {
    return this.lookups.channelName(place);
  }

  cannotPostIn(channel: Place): Promise<string | undefined> {
    return this.lookups.cannotPostIn(channel);
  }

  isMember(channel: Place, userId: string): Promise<boolean | undefined> {
    return this.lookups.isMember(channel, userId);
  }

  /** The channel's people: its members (conversations.members) but bots and the bridge, in id order. */
  async channelAgents(channel: Place): Promise<Actor[] | undefined> {
    const ids = await this.lookups.memberIds(channel);
    if (!ids) return undefined;
    const self = this.opts.botUserId?.();
    const team = this.team(channel);
    const out: Actor[] = [];
    for (const id of [...ids].sort()) {
      if (id === self || (await this.users.isBot(team, id))) continue;
      out.push({ id, name: await this.users.name(team, id), isAdmin: false });
    }
    return out;
  }

  /**
   * Takes the buttons of `actions` off the bridge's messages in the thread: the ones it recorded as
   * it posted them, each edited with chat.update on the workspace's budget. Only a thread older than
   * the records is read back, once, within the history budget (distribution.ts), never waited for.
   */
  async stripButtons(thread: Place, actions: string[]): Promise<void> {
    if (!thread.thread) return;
    const team = this.team(thread);
    const found: Array<{ ts: string; text: string; blocks: Array<Record<string, unknown>> }> =
      await this.buttons.carrying(team, thread, actions);
    if (!(await this.buttons.complete(thread))) found.push(...(await this.readBack(thread)));
    const done = new Set<string>();
    for (const m of found) {
      const blocks = withoutButtons(m.blocks, actions);
      if (!blocks || done.has(m.ts)) continue;
      done.add(m.ts);
      // The text as it was sent (already escaped for Slack), with the remaining blocks.
      await this.gateway.update({ place: thread, id: m.ts }, () => ({ text: m.text, blocks }));
    }
  }

  /** A thread from before the records: its last messages, if the history budget has room now. */
  private async readBack(
    thread: Place,
  ): Promise<Array<{ ts: string; text: string; blocks: Array<Record<string, unknown>> }>> {
    const res = await this.gateway
      .historyRead(thread, 'conversations.replies', { channel: thread.channel, ts: thread.thread })
      .catch((err: unknown) => {
        this.opts.log.info({ code: slackErrorCode(err) }, 'slack: could not read an older thread back for its buttons');
        return undefined;
      });
    if (res === undefined) return [];
    return (threadMessagesSchema.parse(res).messages ?? [])
      .filter((m) => m.bot_id && m.blocks)
      .map((m) => ({ ts: m.ts, text: m.text ?? '', blocks: m.blocks ?? [] }));
  }

  async fetchAttachment(att: Attachment): Promise<Buffer> {
    const url = att.url ?? att.id;
    if (!/^https?:\/\//.test(url)) throw new Error(`attachment ${att.name} has no download URL`);
    // The bot token goes to Slack's own hosts only (or SLACK_API_URL's): never to a host a file names.
    if (!slackFileHost(url, this.clients.apiUrl))
      throw new Error(`attachment ${att.name} is not on a Slack host: not downloaded`);
    const { bytes, contentType: type } = await downloadCapped(url, {
      name: att.name,
      platform: 'Slack',
      // The file's workspace came with it (the message's team): its token, not another workspace's.
      headers: { Authorization: `Bearer ${await this.clients.token(att.workspace || this.opts.team())}` },
    });
    // Without files:read Slack answers 200 with its sign-in page instead of the file.
    if (type.startsWith('text/html') && !(att.mime ?? '').startsWith('text/html')) {
      throw new Error(`Slack did not hand out ${att.name}: is the files:read scope granted?`);
    }
    return bytes;
  }

  startNativeStream(
    place: Place,
    first: OutMessage,
    opts: { latest?: () => OutMessage; for?: Person } = {},
  ): Promise<NativeStream | undefined> {
    return this.streams.start(place, first, opts);
  }

  /** Finish a native stream another process left open (see SlackNativeStreams.stopLeftOpen). */
  stopNativeStream(ref: MessageRef, final: OutMessage, opts: { keepStreamed?: boolean } = {}): Promise<void> {
    return this.streams.stopLeftOpen(ref, final, opts);
  }
}
