/**
 * SurfacePort on Discord: core's messages become REST calls. Threads are channels, so a place's
 * target is its thread when it has one. Calls for an interaction's request are handed its responder
 * (`via`, see DirectMessagePort.forInteraction): `/ask`'s root is the command's reply, `notify` to the
 * invoker an ephemeral follow-up.
 * No rate decisions here: every REST call that shows something goes out through the surface's
 * gateway (gateway.ts), which owns the budgets; the port only translates.
 */
import { type Client, type REST, Routes } from 'discord.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import {
  PlatformRateLimitError,
  type Actor,
  type Attachment,
  type MessageRef,
  type OutMessage,
  type Place,
  type SendOptions,
  type BudgetPort,
  type DirectoryPort,
  type SurfaceLimits,
  type SurfacePort,
} from '../../core/surface';
import type { StateStore } from '../../state/store';
import { NO_STATUS } from '../../core/capabilities';
import { buttonId, parseId } from './custom-ids';
import { ChannelMembers } from './channel-members';
import { DiscordGateway } from './gateway';
import { Threads } from './threads';
import { MAX_CONTENT, renderMessage, restBody, type RenderedMessage } from './render';
import { groupMentionToken, mentionToken } from '../mention-token';
import { downloadCapped } from '../download';
import type { Responder } from './responder';
import { PrivateAnswers } from './user-install';
import { asSurvey } from './survey';
import { repliedMessage, replyReference } from './reply-place';
import { ChannelReplies } from './channel-replies';
import { ThreadMaker } from './thread-maker';
import { errSummary, toRateLimitError } from './rest-errors';

const EPHEMERAL_EDIT_MS = 14 * 60 * 1000;
const idSchema = z.object({ id: z.string() });
const channelNameSchema = z.object({ name: z.string().min(1) });
const botMessageSchema = z
  .object({
    id: z.string(),
    message_reference: z.object({ message_id: z.string().optional() }).optional(),
    components: z
      .array(
        z
          .object({ components: z.array(z.object({ custom_id: z.string().optional() }).passthrough()).optional() })
          .passthrough(),
      )
      .optional(),
  })
  .passthrough();

/** A conversation answered as replies to its root in the channel (channel-replies.ts). */
function asReplies(thread: Place, rootId: string): { thread: Place; root: MessageRef } {
  return {
    thread,
    root: { place: { surface: 'discord', workspace: thread.workspace, channel: thread.channel }, id: rootId },
  };
}

export function targetOf(place: Place): string {
  return repliedMessage(place) ? place.channel : (place.thread ?? place.channel);
}

/** Discord has budgets and a directory (no native streaming, no status line). */
export class DiscordPort implements SurfacePort, BudgetPort, DirectoryPort {
  readonly name = 'discord' as const;
  readonly streaming = undefined;
  readonly budgets: BudgetPort = this;
  readonly directory: DirectoryPort = this;
  readonly status = NO_STATUS;
  readonly firstWordsWaitMs = 0;
  readonly limits: SurfaceLimits = { maxMessageLength: MAX_CONTENT, maxFormFields: 5, cardsPerPage: 5 };
  /**
   * Per ephemeral message, the edit through the interaction that made it: a live interaction, which
   * only this process holds (no other can edit it) and which Discord ends after 15 minutes; entries
   * past that are pruned as new ones come. Keyed by message, holding no lookup of users or channels.
   */
  private readonly ephemeral = new Map<string, { edit: (m: RenderedMessage) => Promise<void>; until: number }>();
  /** The surface's one outbound path. */
  readonly gateway: DiscordGateway;
  /** Which channels are threads (looked up through the gateway). */
  readonly threads: Threads;
  /** Who can view a channel; absent without a client (the port alone only makes REST calls). */
  readonly members: ChannelMembers | undefined;
  /** Conversations where the bot may not post (a user install's): answered through their interaction. */
  readonly privately: PrivateAnswers;
  /** Where the bot may not start a thread: the conversation's answers as replies in the channel. */
  readonly replies: ChannelReplies;
  private readonly threadMaker: ThreadMaker;

  constructor(
    private readonly rest: REST,
    private readonly store: StateStore,
    private readonly log: Logger,
    client?: Client,
    now?: () => number,
  ) {
    this.gateway = new DiscordGateway(store, log);
    this.threads = new Threads(rest, store, this.gateway);
    this.privately = new PrivateAnswers(rest, store, this.gateway, now);
    this.members = client && new ChannelMembers(client, store, this.gateway, log);
    this.threadMaker = new ThreadMaker(rest, this.gateway, this.threads, log);
    this.replies = new ChannelReplies(this, store, log, now ?? Date.now);
  }

  /** The surface stops: calls still waiting for budget fail. */
  close(): void {
    this.gateway.close();
  }

  reserveFinal(place: Place, holder: string): () => void {
    return this.gateway.reserveFinal(targetOf(place), holder);
  }

  promote(coalesceKey: string): void {
    this.gateway.promote(coalesceKey);
  }

  /** `workspace`: the place's (a server, a DM user's `@me:<channel>`): a long button is kept in its part of the store. */
  render(msg: OutMessage, workspace: string): Promise<RenderedMessage> {
    return renderMessage(asSurvey(msg), (b) => buttonId(this.store, workspace, b));
  }

  /** An ephemeral message can only be edited through the interaction that made it. */
  rememberEphemeral(messageId: string, edit: (m: RenderedMessage) => Promise<void>): void {
    const now = Date.now();
    for (const [id, e] of this.ephemeral) if (e.until < now) this.ephemeral.delete(id);
    this.ephemeral.set(messageId, { edit, until: now + EPHEMERAL_EDIT_MS });
  }

  /** `replyTo`: the message it replies to (a conversation answered in its channel: reply-place.ts). */
  private async send(channelId: string, msg: () => Promise<RenderedMessage>, opts: SendOptions = {}, replyTo?: string) {
    let sent: RenderedMessage | undefined;
    const id = await this.gateway.inChannel(channelId, opts, async () => {
      const m = await msg();
      sent = m;
      try {
        const res = await this.rest.post(Routes.channelMessages(channelId), {
          body: { ...restBody(m.body), ...replyReference(replyTo) },
          files: m.files.length ? m.files : undefined,
        });
        return idSchema.parse(res).id;
      } catch (err) {
        throw toRateLimitError(err);
      }
    });
    if (sent) await this.postMore(channelId, sent);
    return id;
  }

  /**
   * The messages that go on after one sent (render.ts's `more`: listings past one message's limits,
   * an answer's listings), each a call of its own on the channel's budget.
   */
  private async postMore(channelId: string, m: RenderedMessage): Promise<void> {
    for (const body of m.more ?? []) await this.send(channelId, async () => ({ body, files: [] }));
  }

  async post(place: Place, msg: OutMessage, opts: SendOptions = {}): Promise<MessageRef> {
    const render = () => this.render(opts.latest ? opts.latest() : msg, place.workspace);
    return { place, id: await this.send(targetOf(place), render, opts, repliedMessage(place)) };
  }

  async edit(ref: MessageRef, msg: OutMessage, opts: SendOptions = {}): Promise<void> {
    const latest = opts.latest;
    const eph = this.ephemeral.get(ref.id);
    if (eph) {
      // Edited through its interaction's webhook: not the channel's bucket.
      await this.gateway.global(opts, async () =>
        eph.edit(await this.render(latest ? latest() : msg, ref.place.workspace)),
      );
      return;
    }
    const channel = targetOf(ref.place);
    let sentEdit: RenderedMessage | undefined;
    await this.gateway.inChannel(channel, opts, async () => {
      const rendered = await this.render(latest ? latest() : msg, ref.place.workspace);
      try {
        await this.rest.patch(Routes.channelMessage(channel, ref.id), {
          body: restBody(rendered.body),
          files: rendered.files.length ? rendered.files : undefined,
        });
        sentEdit = rendered;
      } catch (err) {
        throw toRateLimitError(err);
      }
    });
    if (sentEdit) await this.postMore(channel, sentEdit);
  }

  /** `via`: the interaction of the request that starts it (its command's reply becomes the root). */
  async startThread(
    place: Place,
    root: OutMessage,
    title: string,
    via?: Responder,
  ): Promise<{ thread: Place; root: MessageRef }> {
    // Discord has no threads inside threads: a conversation started in one gets a sibling thread.
    const channel = place.channel;
    const rendered = await this.render(root, place.workspace);
    let rootId =
      via && !place.thread && via.isCommandIn(channel)
        ? await this.gateway.global({}, () => via.rootMessage(rendered, channel))
        : undefined;
    // A thread the bot could make but not write in would swallow the answer: none is made.
    const lacking = await this.replies.lacksThreadWrite(channel);
    let threadId: string | undefined;
    if (rootId && !lacking) {
      try {
        threadId = await this.threadMaker.onMessage(place.workspace, channel, rootId, title);
      } catch (err) {
        const e = toRateLimitError(err);
        if (e instanceof PlatformRateLimitError) throw e;
        const instead = await this.replies.afterRefusal(place.workspace, channel, rootId, err);
        if (instead) return asReplies(instead, rootId);
        // The interaction's reply could not carry a thread (unknown to the channel's messages):
        // the root becomes a channel message of its own.
        this.log.warn({ err: errSummary(err) }, 'discord: no thread on the interaction reply, posting the root');
        rootId = undefined;
      }
    }
    rootId ??= await this.send(channel, async () => rendered);
    if (lacking) return asReplies(await this.replies.instead(place.workspace, channel, rootId, lacking), rootId);
    if (!threadId) {
      try {
        threadId = await this.createThread(place.workspace, channel, rootId, title);
      } catch (err) {
        // Where the bot may not have a thread, the conversation goes on as replies to its root.
        const instead = await this.replies.afterRefusal(place.workspace, channel, rootId, err);
        if (!instead) throw err;
        return asReplies(instead, rootId);
      }
    }
    const rootPlace: Place = { surface: 'discord', workspace: place.workspace, channel };
    return { thread: { ...rootPlace, thread: threadId }, root: { place: rootPlace, id: rootId } };
  }

  /** A thread on a message, or one of its own beside it (thread-maker.ts); a refused permission throws. */
  createThread(guild: string, channelId: string, messageId: string, title: string): Promise<string> {
    return this.threadMaker.onMessageOrBeside(guild, channelId, messageId, title);
  }

  /** `via`: the interaction of the request it answers; a notice to its invoker is its ephemeral reply. */
  async notify(place: Place, user: Actor, msg: OutMessage, via?: Responder): Promise<void> {
    if (via?.live && via.userId === user.id) {
      const rendered = await this.render(msg, place.workspace);
      await this.gateway.global({}, () => via.reply(rendered, true));
      return;
    }
    // Outside an interaction Discord has no ephemeral messages: a reply that mentions the user.
    const prefix = `${this.mention(user)} `;
    const text =
      msg.text.length + prefix.length > MAX_CONTENT ? msg.text.slice(0, MAX_CONTENT - prefix.length) : msg.text;
    await this.post(place, { ...msg, text: `${prefix}${text}`, typing: false });
  }

  mentionGroup(id: string): string | undefined {
    // A role: render.ts writes `<@&id>` and lists it in allowed_mentions.roles.
    return /^\d+$/.test(id) ? groupMentionToken(id) : undefined;
  }

  mention(user: Actor): string {
    // A token render.ts turns into `<@id>` and lists in allowed_mentions.users (nothing else pings).
    return mentionToken(user.id);
  }

  /** A Discord message link (the client opens the channel at that message). */
  async permalink(ref: MessageRef): Promise<string | undefined> {
    if (!ref.id || !ref.place.workspace) return undefined;
    return `https://discord.com/channels/${ref.place.workspace}/${ref.place.channel}/${ref.id}`;
  }

  /** Removes the bridge's buttons of `actions` from its recent messages in a thread; content stays. */
  async stripButtons(thread: Place, actions: string[]): Promise<void> {
    const channel = targetOf(thread);
    const listed = z
      .array(botMessageSchema)
      .safeParse(
        await this.gateway.inChannel(channel, {}, () =>
          this.rest.get(Routes.channelMessages(channel), { query: new URLSearchParams({ limit: '50' }) }),
        ),
      );
    if (!listed.success) return;
    // A conversation answered in its channel (reply-place.ts): only its own replies, not the channel's others.
    const replied = repliedMessage(thread);
    for (const m of listed.data.filter((x) => !replied || x.message_reference?.message_id === replied)) {
      let changed = false;
      const rows: Array<Record<string, unknown>> = [];
      for (const row of m.components ?? []) {
        const kept = [];
        for (const c of row.components ?? []) {
          const parsed =
            typeof c.custom_id === 'string' ? await parseId(this.store, thread.workspace, c.custom_id) : undefined;
          if (parsed?.kind === 'action' && actions.includes(parsed.action)) changed = true;
          else kept.push(c);
        }
        if (kept.length > 0) rows.push({ ...row, components: kept });
      }
      if (!changed) continue;
      await this.gateway.inChannel(channel, { priority: 'interim' }, async () => {
        try {
          // Only the components change: Discord keeps the content and embeds of a partial edit.
          await this.rest.patch(Routes.channelMessage(channel, m.id), {
            body: { components: rows, allowed_mentions: { parse: [] } },
          });
        } catch (err) {
          throw toRateLimitError(err);
        }
      });
    }
  }

  /** The channel's name (a thread's parent channel for a place in a thread). */
  async channelName(place: Place): Promise<string | undefined> {
    const ch = channelNameSchema.safeParse(
      await this.gateway.global({}, () => this.rest.get(Routes.channel(place.channel))).catch(() => undefined),
    );
    return ch.success ? ch.data.name : undefined;
  }

  cannotPostIn(channel: Place): Promise<string | undefined> {
    return this.members?.cannotPost(channel.channel, channel.workspace) ?? Promise.resolve(undefined);
  }

  /** A guild channel's members are those who can view it; all of them, the round-robin roster (channel-members.ts). */
  async isMember(channel: Place, userId: string): Promise<boolean | undefined> {
    return this.members?.canView(channel.channel, userId);
  }

  async channelAgents(channel: Place): Promise<Actor[] | undefined> {
    return (await this.members?.viewers(channel.channel))?.map((v) => ({ ...v, isAdmin: false }));
  }

  /** A button's update of its message, through the interaction (else an edit), on the channel's budgets. */
  async updateFromInteraction(
    place: Place,
    source: MessageRef | undefined,
    msg: OutMessage,
    viaInteraction: (m: RenderedMessage) => Promise<boolean>,
  ): Promise<void> {
    const rendered = await this.render(msg, place.workspace);
    const done = await this.gateway.viaInteraction(targetOf(place), {}, () => viaInteraction(rendered));
    if (!done && source) await this.edit(source, msg);
  }

  async fetchAttachment(att: Attachment): Promise<Buffer> {
    const url = att.url ?? att.id;
    if (!/^https?:\/\//i.test(url)) throw new Error(`attachment ${att.name} has no download URL`);
    // Capped in bytes and time (no token is sent: Discord's attachment URLs are signed).
    const { bytes } = await downloadCapped(url, { name: att.name, platform: 'Discord' });
    this.log.debug({ name: att.name }, 'discord: fetched an attachment');
    return bytes;
  }
}
