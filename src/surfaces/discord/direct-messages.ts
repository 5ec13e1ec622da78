/**
 * Direct messages to the bot. A DM channel has no threads, so a conversation in it is a place whose
 * `thread` is a marker of our own, not a Discord channel: the id of the message that started it.
 * The DM's current marker lives in the store; later DMs continue that conversation (the same chat
 * session) until the user starts a new one: `/ask` in the DM, or the "New conversation" button that
 * every finished answer in a DM carries. Core sees ordinary places; the port below maps a DM place
 * back to its channel before anything reaches Discord.
 */
import { HANDOFF_ACTIONS } from '../../core/handoff/model';
import { NO_STATUS } from '../../core/capabilities';
import type {
  Actor,
  Attachment,
  BudgetPort,
  DirectoryPort,
  MessageRef,
  OutMessage,
  Place,
  SendOptions,
  SurfacePort,
} from '../../core/surface';
import { readMoving, writeMoving } from '../../state/moved-records';
import type { StateStore } from '../../state/store';
// The workspace of a DM's places (records.ts's dmWorkspace): each DM (one per user and the bot) is a
// tenant of its own, `@me:<DM channel id>`, so no DM user's conversations, records or limits are another's.
import { DM_WORKSPACE, discordRecords, dmWorkspace } from './records';
import { moveSharedDmConversation } from './dm-upgrade';
import type { DiscordPort } from './port';
import type { Responder } from './responder';
import { isPrivateThread } from './user-install';

/** The button that starts a new conversation in a DM; handled by the surface (it only moves the marker). */
export const NEW_CONVERSATION_ACTION = 'discord.dm.new';

const MARKER_TTL_MS = 90 * 24 * 3600 * 1000;

function isDirect(place: Place): boolean {
  return (
    place.surface === 'discord' && (place.workspace === DM_WORKSPACE || place.workspace.startsWith(`${DM_WORKSPACE}:`))
  );
}

/** The DM channel itself: where a DM conversation's messages go. */
function channelPlace(place: Place): Place {
  return isDirect(place) ? { surface: 'discord', workspace: place.workspace, channel: place.channel } : place;
}

/** Which conversation each DM channel is in, and which guild a guild place configured without one is in. */
export class DirectMessages {
  constructor(
    private readonly store: StateStore,
    /** The guild of a channel the client knows. */
    private readonly guildOf: (channelId: string) => string | undefined = () => undefined,
  ) {}

  /**
   * A guild place configured without its guild (DISCORD_HANDOFF_CHANNEL when DISCORD_GUILD_ID is
   * unset: the bot serves every server) gets its channel's guild, so a ticket thread's place is the
   * one its messages arrive with (and its links name the server).
   */
  placed(place: Place): Place {
    if (place.workspace !== '' || isDirect(place)) return place;
    const guild = this.guildOf(place.channel);
    return guild ? { ...place, workspace: guild } : place;
  }

  /** The DM's current conversation; without one, the place of the channel (no conversation yet). */
  async currentPlace(channelId: string): Promise<Place> {
    const r = discordRecords.dm(this.store, channelId);
    const place: Place = { surface: 'discord', workspace: dmWorkspace(channelId), channel: channelId };
    const marker = await r.view.get(r.key);
    if (typeof marker === 'string') return { ...place, thread: marker };
    const moved = await readMoving(this.store, r.view, r.key, r.legacy, MARKER_TTL_MS);
    if (typeof moved !== 'string') return place;
    // A marker of before the upgrade: its conversation comes along (dm-upgrade.ts).
    await moveSharedDmConversation(this.store, { ...place, thread: moved }, MARKER_TTL_MS);
    return { ...place, thread: moved };
  }

  /** The conversation a new DM belongs to: the current one, or one this message starts. */
  async placeForMessage(channelId: string, messageId: string): Promise<Place> {
    const current = await this.currentPlace(channelId);
    if (current.thread !== undefined) return current;
    const r = discordRecords.dm(this.store, channelId);
    await r.view.setIfAbsent(r.key, messageId, MARKER_TTL_MS);
    return this.currentPlace(channelId);
  }

  /** Makes `marker` the DM's conversation from now on (`/ask` in the DM). */
  async begin(channelId: string, marker: string): Promise<void> {
    const r = discordRecords.dm(this.store, channelId);
    await writeMoving(this.store, r.view, r.key, r.legacy, marker, MARKER_TTL_MS);
  }

  /** The next DM starts a new conversation. */
  async startOver(channelId: string): Promise<void> {
    const r = discordRecords.dm(this.store, channelId);
    await r.view.delete(r.key);
    for (const old of r.legacy) await this.store.delete(old);
  }
}

/**
 * The surface's port as core sees it: Discord's port, plus DM places. Posts and edits in a DM
 * conversation go to its channel; a "thread" started in a DM (`/ask` there) is a new conversation
 * in the same channel, rooted on the command's reply; finished answers in a DM offer
 * "New conversation". One built `forInteraction` is the port an interaction's request carries: the
 * interaction travels with it (no per-call context), for the calls Discord answers through it.
 */
export class DirectMessagePort implements SurfacePort, BudgetPort, DirectoryPort {
  readonly name = 'discord' as const;
  readonly streaming = undefined;
  readonly budgets: BudgetPort = this;
  readonly directory: DirectoryPort = this;
  readonly status = NO_STATUS;
  readonly firstWordsWaitMs = 0;

  constructor(
    private readonly port: DiscordPort,
    private readonly dms: DirectMessages,
    private readonly via?: Responder,
  ) {}

  /** This port for one interaction's request: its thread roots on the command's reply, its invoker's notices are ephemeral. */
  forInteraction(responder: Responder): DirectMessagePort {
    return new DirectMessagePort(this.port, this.dms, responder);
  }

  get limits(): SurfacePort['limits'] {
    return this.port.limits;
  }

  async post(at: Place, msg: OutMessage, opts: SendOptions = {}): Promise<MessageRef> {
    if (isPrivateThread(at)) {
      const latest = opts.latest;
      const id = await this.port.privately.post(at, () =>
        this.port.render(this.decorate(at, latest ? latest() : msg), at.workspace),
      );
      return { place: at, id };
    }
    const place = this.dms.placed(at);
    const ref = await this.port.post(channelPlace(place), this.decorate(place, msg), this.decorateLatest(place, opts));
    return { place, id: ref.id };
  }

  async edit(ref: MessageRef, msg: OutMessage, opts: SendOptions = {}): Promise<void> {
    if (isPrivateThread(ref.place)) {
      const latest = opts.latest;
      const place = ref.place;
      await this.port.privately.edit(place, ref.id, () =>
        this.port.render(this.decorate(place, latest ? latest() : msg), place.workspace),
      );
      return;
    }
    await this.port.edit(this.channelRef(ref), this.decorate(ref.place, msg), this.decorateLatest(ref.place, opts));
  }

  /** A button's update of its message (port.updateFromInteraction), in the DM's channel. */
  updateFromInteraction(
    place: Place,
    source: MessageRef | undefined,
    msg: OutMessage,
    viaInteraction: Parameters<DiscordPort['updateFromInteraction']>[3],
  ): Promise<void> {
    return this.port.updateFromInteraction(channelPlace(place), source && this.channelRef(source), msg, viaInteraction);
  }

  async startThread(place: Place, root: OutMessage, title: string): Promise<{ thread: Place; root: MessageRef }> {
    const via = this.via;
    if (via?.privately) {
      // Where the bot may not post: the conversation lives in the interaction's own replies.
      const i = via.interaction;
      const rootId = await this.port.gateway.global({}, async () =>
        via.reply(await this.port.render(root, place.workspace), true),
      );
      const thread = await this.port.privately.begin(place, i.id, i.applicationId, i.token);
      if (rootId) await this.port.privately.noteMessage(thread, rootId);
      return { thread, root: { place, id: rootId ?? i.id } };
    }
    if (!isDirect(place)) return this.port.startThread(this.dms.placed(place), root, title, this.via);
    const channel = channelPlace(place);
    // The command's own reply is the root when it is still free, as in a guild channel.
    const rendered = await this.port.render(root, channel.workspace);
    const replied = this.via ? await this.via.rootMessage(rendered, channel.channel) : undefined;
    const rootId = replied ?? (await this.port.post(channel, root)).id;
    await this.dms.begin(channel.channel, rootId);
    return { thread: { ...channel, thread: rootId }, root: { place: channel, id: rootId } };
  }

  async notify(place: Place, user: Actor, msg: OutMessage): Promise<void> {
    if (isPrivateThread(place) && !(this.via?.live && this.via.userId === user.id)) {
      await this.post(place, msg);
      return;
    }
    return this.port.notify(channelPlace(place), user, msg, this.via);
  }

  // Handoff tickets' links, channel names and button removal (guild places; DMs have none of them).
  permalink(ref: MessageRef): Promise<string | undefined> {
    // Discord's link to a DM message names no guild: `/channels/@me/<channel>/<message>`.
    return this.port.permalink(
      isDirect(ref.place) ? { ...ref, place: { ...ref.place, workspace: DM_WORKSPACE } } : ref,
    );
  }

  channelName(place: Place): Promise<string | undefined> {
    return isDirect(place) ? Promise.resolve('direct message') : this.port.channelName(place);
  }

  cannotPostIn(channel: Place): Promise<string | undefined> {
    return isDirect(channel)
      ? Promise.resolve('a direct message is no handoff channel.')
      : this.port.cannotPostIn(channel);
  }

  isMember(channel: Place, userId: string): Promise<boolean | undefined> {
    return isDirect(channel) ? Promise.resolve(undefined) : this.port.isMember(channel, userId);
  }

  channelAgents(channel: Place): Promise<Actor[] | undefined> {
    return isDirect(channel) ? Promise.resolve(undefined) : this.port.channelAgents(channel);
  }

  stripButtons(thread: Place, actions: string[]): Promise<void> {
    // A private conversation's messages are ephemeral: no channel of the bot's to read them back from.
    if (isPrivateThread(thread)) return Promise.resolve();
    return this.port.stripButtons(channelPlace(thread), actions);
  }

  mention(user: Actor): string {
    return this.port.mention(user);
  }

  mentionGroup(id: string): string | undefined {
    return this.port.mentionGroup(id);
  }

  reserveFinal(place: Place, holder: string): () => void {
    return this.port.reserveFinal(channelPlace(place), holder);
  }

  promote(coalesceKey: string): void {
    this.port.promote(coalesceKey);
  }

  fetchAttachment(att: Attachment): Promise<Buffer> {
    return this.port.fetchAttachment(att);
  }

  private channelRef(ref: MessageRef): MessageRef {
    return { place: channelPlace(ref.place), id: ref.id };
  }

  /** The gateway reads `latest` when the call goes out: it gets the DM's button too. */
  private decorateLatest(place: Place, opts: SendOptions): SendOptions {
    const latest = opts.latest;
    return latest ? { ...opts, latest: () => this.decorate(place, latest()) } : opts;
  }

  /**
   * A finished answer (it offers "Talk to a human") in a DM also offers a new conversation. A private
   * conversation (user install) offers no human: an agent's replies could not reach it once its
   * interaction ends, 15 minutes on.
   */
  private decorate(place: Place, msg: OutMessage): OutMessage {
    if (isPrivateThread(place))
      return msg.buttons ? { ...msg, buttons: msg.buttons.filter((b) => b.action !== HANDOFF_ACTIONS.request) } : msg;
    if (!isDirect(place) || msg.typing || !msg.buttons?.some((b) => b.action === HANDOFF_ACTIONS.request)) return msg;
    return {
      ...msg,
      buttons: [...msg.buttons, { action: NEW_CONVERSATION_ACTION, label: 'New conversation', value: place.channel }],
    };
  }
}
