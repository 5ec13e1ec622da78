/**
 * What the inbound parts (interactions, messages, forms) share: where an event happened as core's
 * Place, and an interaction as core's Invocation answered through a Responder.
 */
import type { Interaction } from 'discord.js';
import { requestTenant } from '../../core/tenants/tenant';
import type { Logger } from 'pino';
import type { Actor, BridgeCore, FormSpec, Invocation, Place } from '../../core/surface';
import type { StateStore } from '../../state/store';
import type { DirectMessagePort, DirectMessages } from './direct-messages';
import type { People } from './people';
import { dmWorkspace } from './records';
import type { DiscordPort } from './port';
import type { RenderedMessage } from './render';
import { errInfo, Responder, type Repliable } from './responder';
import type { Threads } from './threads';
import type { ChannelReplies } from './channel-replies';
import { answeredPrivately, privatePlace } from './user-install';

export interface Inbound {
  /** Discord's port: rendering, and ephemeral messages an interaction made. */
  port: DiscordPort;
  /** The port core is given (DM places included): every Invocation carries it. */
  surface: DirectMessagePort;
  store: StateStore;
  log: Logger;
  threads: Threads;
  /** A mention's thread, or replies in its channel where the bot may not make one. */
  replies: ChannelReplies;
  dms: DirectMessages;
  people: People;
  /** Opens core's form for an interaction (form-flow.ts). */
  openForm(responder: Responder, form: FormSpec, actor: Actor): Promise<void>;
  /** Undefined until the app attaches core. */
  core(): BridgeCore | undefined;
  /** The bot's own user id (known once the gateway is ready). */
  botId(): string;
  deferAfterMs: number;
}

/**
 * Where an event happened: a private place where the bot may not post (a user install's, see
 * user-install.ts), a DM's current conversation, a guild thread under its channel, or a channel.
 */
export async function placeOf(
  inb: Inbound,
  guildId: string | null,
  channelId: string,
  i?: Interaction,
): Promise<Place> {
  if (i && answeredPrivately(i)) return privatePlace(channelId, i.user.id);
  if (!guildId) return inb.dms.currentPlace(channelId);
  const parent = await inb.threads.parentOf(guildId, channelId);
  return parent
    ? { surface: 'discord', workspace: guildId, channel: parent, thread: channelId }
    : { surface: 'discord', workspace: guildId, channel: channelId };
}

/**
 * The workspace of the place an interaction happened in, as placeOf names it without reading the
 * store: a private answer's user's `@me:u<user>`, a DM user's own `@me:<DM channel>`, or the server. The surface's
 * records of the interaction (its long buttons, its form) are read in that tenant's part only.
 */
export function interactionWorkspace(i: Interaction): string {
  if (answeredPrivately(i)) return privatePlace(i.channelId ?? '', i.user.id).workspace;
  return i.guildId ?? dmWorkspace(i.channelId ?? '');
}

/** Who acts; where the bot is not installed (a user install's), their server roles make no admin of them. */
export function actorFor(inb: Inbound, i: Repliable): Promise<Actor> {
  return answeredPrivately(i)
    ? inb.people.actorOf(i.user, null)
    : inb.people.actorOf(i.user, i.member, i.memberPermissions);
}

export function responderFor(inb: Inbound, i: Repliable, deferEphemeral: boolean): Responder {
  const privately = answeredPrivately(i);
  return new Responder(i, {
    deferAfterMs: inb.deferAfterMs,
    deferEphemeral: deferEphemeral || privately,
    privately,
    log: inb.log,
    onEphemeral: (id, edit) => inb.port.rememberEphemeral(id, edit),
  });
}

/** Plain text for the surface's own notes (expired buttons, form states). */
export function plain(text: string): RenderedMessage {
  return {
    body: { content: text.slice(0, 2000), embeds: [], components: [], allowed_mentions: { parse: ['users'] } },
    files: [],
  };
}

/**
 * An interaction as core's request: the guild is the tenant (a DM's '@me'), the answer is for the
 * invoker, and the surface it carries is bound to the interaction (DirectMessagePort.forInteraction).
 */
export function invocationOf(inb: Inbound, responder: Responder, place: Place, actor: Actor): Invocation {
  const i = responder.interaction;
  const inv: Invocation = {
    tenant: requestTenant(place),
    surface: inb.surface.forInteraction(responder),
    place,
    actor,
    for: { id: actor.id, name: actor.name },
    reply: async (msg, o) => {
      const rendered = await inb.port.render(msg, place.workspace);
      const id = await inb.port.gateway.global({}, () => responder.reply(rendered, o?.ephemeral ?? false));
      return id ? { place, id } : undefined;
    },
    openForm: (form) => inb.openForm(responder, form, actor),
  };
  if (i.isButton() || (i.isModalSubmit() && i.isFromMessage())) {
    const source = i.message ? { place, id: i.message.id } : undefined;
    if (source) inv.source = source;
    // Through the surface's gateway; a wait past the interaction's deadline is safe: the responder
    // defers it meanwhile.
    inv.update = (msg) => inb.surface.updateFromInteraction(place, source, msg, (r) => responder.update(r));
  }
  return inv;
}

/** Runs a core call for an interaction: answers within Discord's deadline, always acknowledges. */
export async function withResponder(inb: Inbound, responder: Responder, fn: () => Promise<unknown>): Promise<void> {
  responder.start();
  try {
    await fn();
  } finally {
    await responder
      .finish()
      .catch((err: unknown) => inb.log.warn({ err: errInfo(err) }, 'discord: could not close an interaction'));
  }
}
