/**
 * A person who installed the app for themselves (Discord's user install) can run `/ask` and
 * `/listings` where the bot itself is not: a server that never added it, a group DM, a DM between two
 * other people. There the bot may post nothing (no channel message, no thread): the interaction is
 * the only way back, and the answer is the invoker's own, so everything goes out as ephemeral
 * responses and follow-ups of that interaction, through its token (valid 15 minutes), never the
 * bot's channel routes.
 *
 * Such a conversation's place is a private one: the DM workspace (the answer is the person's, not
 * the server's), the interaction's channel, and as thread a marker naming the interaction. The
 * interaction's token is kept in the store for its 15 minutes so whichever instance answers the
 * question can reach it; it is never logged.
 */
import {
  ApplicationIntegrationType,
  InteractionContextType,
  type Interaction,
  MessageFlags,
  type REST,
  Routes,
} from 'discord.js';
import { z } from 'zod';
import type { Place } from '../../core/surface';
import type { StateStore } from '../../state/store';
import type { DiscordGateway } from './gateway';
import { discordRecords } from './records';
import { restBody, type RenderedMessage } from './render';

/**
 * A private answer belongs to the person, as a DM's does: each user's private answers are a tenant of
 * their own (`@me:u<user id>`, beside their DM's `@me:<DM channel>`), never one part every user shares.
 */
function personalWorkspace(userId: string): string {
  return `@me:u${userId}`;
}
const MARKER = 'ix';
/** An interaction token lives 15 minutes; a little less, so a follow-up never races its end. */
const TOKEN_TTL_MS = 14 * 60 * 1000;
/** A private answer's messages are known as its own as long as its Retry button lives (14 days). */
const MESSAGE_TTL_MS = 14 * 24 * 60 * 60 * 1000;

/** `at`: when the token was issued, on the bridge's clock (a record from before it had none). */
const tokenSchema = z.object({ app: z.string(), token: z.string(), at: z.number().optional() });
const markerSchema = z.object({ thread: z.string() });
const idSchema = z.object({ id: z.string() });

/** A private conversation Discord no longer lets the bot reach: its last interaction's 15 minutes are over. */
export class PrivateAnswerEnded extends Error {}

/**
 * Whether the bot may not post where the interaction happened, so it is answered through the
 * interaction alone: a group DM or a DM between others (context 2), or a server whose interaction
 * was not authorized by an install in that server (`authorizing_integration_owners` lacks the guild
 * install), or one the bot is not in.
 */
export function answeredPrivately(i: Interaction): boolean {
  if (i.context === InteractionContextType.PrivateChannel) return true;
  if (!i.guildId) return false;
  const owners = i.authorizingIntegrationOwners;
  // Discord names the installs behind every interaction; without the field, the bot's own servers say.
  if (owners && Object.keys(owners).length > 0 && owners[ApplicationIntegrationType.GuildInstall] !== i.guildId)
    return true;
  return !i.client.guilds.cache.has(i.guildId);
}

/** The place of a private interaction (no thread yet: `/ask` makes one of its own). */
export function privatePlace(channelId: string, userId: string): Place {
  return { surface: 'discord', workspace: personalWorkspace(userId), channel: channelId };
}

export function isPrivateThread(place: Place): boolean {
  return place.surface === 'discord' && place.thread?.startsWith(MARKER) === true;
}

/**
 * The answers of private conversations: follow-ups and edits through their interaction's token. A
 * button pressed on one of their messages is a new interaction with 15 minutes of its own: the
 * conversation goes on through that one (a Retry pressed after the first token ended is answered).
 */
export class PrivateAnswers {
  constructor(
    private readonly rest: REST,
    private readonly store: StateStore,
    private readonly gateway: DiscordGateway,
    private readonly now: () => number = Date.now,
  ) {}

  /** In the user's own part of the store: a private conversation's place names it (records.ts). */
  private record(workspace: string, interactionId: string) {
    return discordRecords.interaction(this.store, workspace, interactionId);
  }

  /** The token the conversation begun by `interactionId` is reached through from now on. */
  private async keep(workspace: string, interactionId: string, app: string, token: string): Promise<void> {
    const r = this.record(workspace, interactionId);
    await r.view.set(r.key, { app, token, at: this.now() }, TOKEN_TTL_MS);
  }

  /** A private conversation starts on its interaction: its thread marker names it. */
  async begin(place: Place, interactionId: string, app: string, token: string): Promise<Place> {
    await this.keep(place.workspace, interactionId, app, token);
    return {
      surface: 'discord',
      workspace: place.workspace,
      channel: place.channel,
      thread: `${MARKER}${interactionId}`,
    };
  }

  /** `messageId` is one of the private conversation at `place`'s messages (a press on it continues it). */
  async noteMessage(place: Place, messageId: string): Promise<void> {
    if (!isPrivateThread(place) || !place.thread) return;
    const r = discordRecords.privateMessage(this.store, place.workspace, messageId);
    // A record that cannot be written costs a Retry after 15 minutes, never the answer.
    await r.view.set(r.key, { thread: place.thread }, MESSAGE_TTL_MS).catch(() => undefined);
  }

  /**
   * A button was pressed on `messageId` through a new interaction (`app`, `token`): if the message
   * is a private conversation's, the conversation is reached through this interaction from now on.
   * False: no private conversation's message is known by that id.
   */
  async adopt(workspace: string, messageId: string, app: string, token: string): Promise<boolean> {
    const r = discordRecords.privateMessage(this.store, workspace, messageId);
    const held = markerSchema.safeParse(await r.view.get(r.key));
    if (!held.success) return false;
    await this.keep(workspace, held.data.thread.slice(MARKER.length), app, token);
    return true;
  }

  private async tokenOf(place: Place): Promise<{ app: string; token: string }> {
    const id = place.thread?.slice(MARKER.length) ?? '';
    const r = this.record(place.workspace, id);
    const held = tokenSchema.safeParse(await r.view.get(r.key));
    const ended = !held.success || (held.data.at !== undefined && this.now() - held.data.at >= TOKEN_TTL_MS);
    // Past 15 minutes Discord takes nothing more through the interaction: there is no other way in.
    if (ended) throw new PrivateAnswerEnded('the private conversation’s interaction has ended');
    return held.data;
  }

  /** An ephemeral follow-up of the conversation's interaction (and its `more`). */
  async post(place: Place, msg: () => Promise<RenderedMessage>): Promise<string> {
    const { app, token } = await this.tokenOf(place);
    let sent: RenderedMessage | undefined;
    const id = await this.gateway.global({}, async () => {
      sent = await msg();
      return idSchema.parse(await this.followUp(app, token, sent.body, sent.files)).id;
    });
    await this.noteMessage(place, id);
    for (const body of sent?.more ?? []) {
      const more = await this.gateway.global({}, () => this.followUp(app, token, body, []));
      const parsed = idSchema.safeParse(more);
      if (parsed.success) await this.noteMessage(place, parsed.data.id);
    }
    return id;
  }

  async edit(place: Place, messageId: string, msg: () => Promise<RenderedMessage>): Promise<void> {
    const { app, token } = await this.tokenOf(place);
    await this.gateway.global({}, async () => {
      const m = await msg();
      await this.rest.patch(Routes.webhookMessage(app, token, messageId), {
        body: restBody(m.body),
        files: m.files.length ? m.files : undefined,
        auth: false,
      });
    });
  }

  private followUp(app: string, token: string, body: RenderedMessage['body'], files: RenderedMessage['files']) {
    return this.rest.post(Routes.webhook(app, token), {
      body: { ...restBody(body), flags: (body.flags ?? 0) | MessageFlags.Ephemeral },
      files: files.length ? files : undefined,
      auth: false,
    });
  }
}
