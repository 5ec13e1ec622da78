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
import { restBody, type RenderedMessage } from './render';

/** Discord's own name for "no guild" in its routes: a private answer belongs to the person, as a DM's does. */
const PERSONAL_WORKSPACE = '@me';
const MARKER = 'ix';
/** An interaction token lives 15 minutes; a little less, so a follow-up never races its end. */
const TOKEN_TTL_MS = 14 * 60 * 1000;

const tokenSchema = z.object({ app: z.string(), token: z.string() });
const idSchema = z.object({ id: z.string() });

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
export function privatePlace(channelId: string): Place {
  return { surface: 'discord', workspace: PERSONAL_WORKSPACE, channel: channelId };
}

export function isPrivateThread(place: Place): boolean {
  return place.surface === 'discord' && place.thread?.startsWith(MARKER) === true;
}

/** The answers of private conversations: follow-ups and edits through their interaction's token. */
export class PrivateAnswers {
  constructor(
    private readonly rest: REST,
    private readonly store: StateStore,
    private readonly gateway: DiscordGateway,
  ) {}

  private key(interactionId: string): string {
    return `discord:ix:${interactionId}`;
  }

  /** A private conversation starts on its interaction: its thread marker names it. */
  async begin(channelId: string, interactionId: string, app: string, token: string): Promise<Place> {
    await this.store.set(this.key(interactionId), { app, token }, TOKEN_TTL_MS);
    return { ...privatePlace(channelId), thread: `${MARKER}${interactionId}` };
  }

  private async tokenOf(place: Place): Promise<{ app: string; token: string }> {
    const id = place.thread?.slice(MARKER.length) ?? '';
    const held = tokenSchema.safeParse(await this.store.get(this.key(id)));
    // Past 15 minutes Discord takes nothing more through the interaction: there is no other way in.
    if (!held.success) throw new Error('the private conversation’s interaction has ended');
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
    for (const body of sent?.more ?? []) await this.gateway.global({}, () => this.followUp(app, token, body, []));
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
