/**
 * The Discord surface (discord.js v14): gateway events and interactions in, core calls out.
 * Slash commands become the grammar's argument string, buttons core's actions, modals core's forms;
 * thread messages and mentions become IncomingMessages. Logic stays in core.
 */
import {
  Client,
  Events,
  GatewayIntentBits,
  Routes,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type GuildMember,
  type Interaction,
  type ModalSubmitInteraction,
  type APIInteractionGuildMember,
} from 'discord.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import { argsFromOptions, COMMAND_SPECS } from '../../core/commands/grammar';
import type { Actor, BridgeCore, CommandName, FormSpec, Invocation, Place, } from '../../core/surface';
import type { StateStore } from '../../state/store';
import type { SurfaceRuntime } from '../runtime';
import { slashCommandDefinitions } from './commands';
import { newKey, parseId } from './custom-ids';
import { guardGateway } from './gateway-guard';
import { FormSessions, modalOf, panelOf, type FormSession } from './forms';
import { DiscordPort, interactionScope, Threads } from './port';
import { errInfo, Responder } from './responder';
import type { RenderedMessage } from './render';


export interface DiscordSurfaceOptions {
  token: string;
  applicationId: string;
  guildId?: string;
  /** REST base without the version (discord.js `rest.api`), e.g. http://127.0.0.1:9000/api. */
  apiUrl?: string;
  /** Role ids whose members are admins. */
  adminRoles: string[];
  handoffChannel?: string;
  store: StateStore;
  log: Logger;
  /** Defer an interaction core has not answered after this long (default 1,500 ms; Discord allows 3 s). */
  deferAfterMs?: number;
  /** Give up waiting for the gateway's READY after this long (default 30 s). */
  readyTimeoutMs?: number;
}

export interface DiscordRuntime extends SurfaceRuntime {
  /** How many times discord.js reported a rate limit (429 or a pre-emptive wait). */
  rateLimitEvents(): number;
}

/** Commands whose answers everyone in the channel sees; the others answer their invoker only. */
const PUBLIC_COMMANDS = new Set<CommandName>(COMMAND_SPECS.filter((s) => s.answersInChannel).map((s) => s.name));
const COMMAND_NAMES = new Set<string>(COMMAND_SPECS.map((s) => s.name));

const messageCreateSchema = z.object({
  id: z.string(),
  channel_id: z.string(),
  guild_id: z.string().nullish(),
  type: z.number().nullish(),
  content: z.string().nullish().transform((c) => c ?? ''),
  webhook_id: z.string().nullish(),
  author: z.object({
    id: z.string(),
    username: z.string(),
    global_name: z.string().nullish(),
    bot: z.boolean().nullish(),
  }),
  member: z.object({ nick: z.string().nullish(), roles: z.array(z.string()).nullish() }).nullish(),
  mentions: z
    .array(z.object({ id: z.string() }).passthrough())
    .nullish()
    .transform((m) => m ?? []),
  attachments: z
    .array(
      z.object({
        id: z.string(),
        filename: z.string(),
        size: z.number().nullish(),
        url: z.string(),
        content_type: z.string().nullish(),
      }),
    )
    .nullish()
    .transform((a) => a ?? []),
});
type MessageCreate = z.infer<typeof messageCreateSchema>;

const threadCreateSchema = z.object({ id: z.string(), type: z.number(), parent_id: z.string().nullish() });
const rawPacketSchema = z.object({ t: z.string().nullish(), d: z.unknown() });

/** Plain message or reply; system messages (thread created, pins, joins) are not for the bot. */
const USER_MESSAGE_TYPES = new Set([0, 19]);

/** DISCORD_API_URL as discord.js's `rest.api` takes it: no trailing slash, no version (it adds /v10). */
export function restBase(apiUrl: string): string {
  return apiUrl.replace(/\/+$/, '').replace(/\/v\d+$/, '');
}

function sanitizeRoute(route: string): string {
  return route.replace(/\/(webhooks|interactions)\/[^/]+\/[^/]+/, '/$1/:id/:token');
}

export function createDiscordSurface(opts: DiscordSurfaceOptions): DiscordRuntime {
  const log = opts.log;
  const client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
    rest: opts.apiUrl ? { api: restBase(opts.apiUrl) } : {},
  });
  const rest = client.rest;
  guardGateway(client, log);
  const threads = new Threads(rest, opts.store);
  const port = new DiscordPort(rest, opts.store, threads, log);
  const forms = new FormSessions(opts.store);
  const deferAfterMs = opts.deferAfterMs ?? 1500;
  let core: BridgeCore | undefined;
  let ready = false;
  let botId = opts.applicationId;
  let rateLimits = 0;

  rest.on('rateLimited', (info) => {
    rateLimits += 1;
    log.warn(
      { route: sanitizeRoute(info.route), method: info.method, limit: info.limit, timeToReset: info.timeToReset, global: info.global, scope: info.scope },
      'discord: rate limited',
    );
  });
  client.on(Events.Error, (err) => log.error({ err: errInfo(err) }, 'discord: client error'));
  client.on(Events.Warn, (message) => log.warn({ message: message.split(opts.token).join('***') }, 'discord: warning'));

  // ------------------------------------------------------------------ who and where

  function actorOf(user: { id: string; username: string; globalName?: string | null }, nick: string | null | undefined, roles: string[]): Actor {
    return {
      id: user.id,
      name: nick || user.globalName || user.username,
      isAdmin: roles.some((r) => opts.adminRoles.includes(r)),
    };
  }

  function interactionActor(i: Interaction): Actor {
    const member = i.member as GuildMember | APIInteractionGuildMember | null;
    let roles: string[] = [];
    let nick: string | null | undefined;
    if (member) {
      if (Array.isArray(member.roles)) {
        roles = member.roles;
        nick = (member as APIInteractionGuildMember).nick;
      } else {
        // roles.cache only holds roles the guild's cache knows (GUILD_CREATE may list none, or not
        // yet a new one); the member's own role ids, as the interaction carried them, are the truth.
        const own = (member as unknown as { _roles?: unknown })._roles;
        roles = Array.isArray(own) ? own.filter((r): r is string => typeof r === 'string') : [];
        roles = [...new Set([...roles, ...(member as GuildMember).roles.cache.keys()])];
        nick = (member as GuildMember).nickname;
      }
    }
    return actorOf(i.user, nick, roles);
  }

  async function placeOf(guildId: string, channelId: string): Promise<Place> {
    const parent = await threads.parentOf(channelId);
    return parent
      ? { surface: 'discord', workspace: guildId, channel: parent, thread: channelId }
      : { surface: 'discord', workspace: guildId, channel: channelId };
  }

  function responderFor(i: ChatInputCommandInteraction | ButtonInteraction | ModalSubmitInteraction, deferEphemeral: boolean): Responder {
    return new Responder(i, {
      deferAfterMs,
      deferEphemeral,
      log,
      onEphemeral: (id, edit) => port.rememberEphemeral(id, edit),
    });
  }

  function invocationOf(responder: Responder, place: Place, actor: Actor): Invocation {
    const i = responder.interaction;
    const inv: Invocation = {
      surface: port,
      place,
      actor,
      reply: async (msg, o) => {
        const rendered = await port.render(msg);
        const id = await port.gateway.global({}, () => responder.reply(rendered, o?.ephemeral ?? false));
        return id ? { place, id } : undefined;
      },
      openForm: (form) => openForm(responder, form, actor),
    };
    if (i.isButton() || (i.isModalSubmit() && i.isFromMessage())) {
      const message = i.message;
      if (message) inv.source = { place, id: message.id };
      // Through the surface's gateway; a wait past the interaction's deadline is safe: the
      // responder defers it meanwhile.
      inv.update = (msg) => port.updateFromInteraction(place, inv.source, msg, (r) => responder.update(r));
    }
    return inv;
  }

  /** Runs a core call for an interaction: answers within Discord's deadline, always acknowledges. */
  async function withResponder(responder: Responder, fn: () => Promise<unknown>): Promise<void> {
    responder.start();
    try {
      await interactionScope.run({ responder }, fn);
    } finally {
      await responder.finish().catch((err: unknown) => log.warn({ err: errInfo(err) }, 'discord: could not close an interaction'));
    }
  }

  // ------------------------------------------------------------------ forms

  function panelMessage(key: string, session: FormSession): RenderedMessage {
    const panel = panelOf(key, session);
    return { body: { content: panel.content, embeds: [], components: panel.components, allowed_mentions: { parse: ['users'] } }, files: [] };
  }

  function plain(text: string): RenderedMessage {
    return { body: { content: text.slice(0, 2000), embeds: [], components: [], allowed_mentions: { parse: ['users'] } }, files: [] };
  }

  async function openForm(responder: Responder, form: FormSpec, actor: Actor): Promise<void> {
    const key = newKey();
    const session = await forms.create(key, form, actor.id);
    if (session.chunks.length === 1 && (await responder.showModal(modalOf(key, session, 0, true)))) return;
    await responder.reply(panelMessage(key, session), true);
  }

  async function submitForm(responder: Responder, key: string, session: FormSession, place: Place, actor: Actor, fromPanel: boolean): Promise<void> {
    const inv = invocationOf(responder, place, actor);
    const result = await core!.submitForm(inv, session.formId, session.state, session.values);
    if (result.ok) {
      await forms.delete(key);
      const done = result.message ? await port.render(result.message) : plain(`${session.title}: saved.`);
      if (!fromPanel || !(await responder.update(done))) await responder.reply(done, true);
      return;
    }
    session.errors = result.errors;
    await forms.save(key, session);
    const panel = panelMessage(key, session);
    if (fromPanel && (await responder.update(panel))) return;
    await responder.reply(panel, true);
    log.debug({ form: session.formId, fields: Object.keys(result.errors) }, 'discord: form refused');
  }

  async function loadOwnedForm(i: ButtonInteraction | ModalSubmitInteraction, key: string): Promise<FormSession | undefined> {
    const session = await forms.load(key);
    if (!session) {
      await i.reply({ content: 'This form has expired: run the command again.', flags: 64 });
      return undefined;
    }
    if (session.userId !== i.user.id) {
      await i.reply({ content: 'This form belongs to someone else: run the command yourself to get your own.', flags: 64 });
      return undefined;
    }
    return session;
  }

  // ------------------------------------------------------------------ interactions

  async function onCommand(i: ChatInputCommandInteraction): Promise<void> {
    const guildId = guildOf(i.guildId);
    if (!COMMAND_NAMES.has(i.commandName) || !guildId) {
      await i.reply({ content: `/${i.commandName} is not available here.`, flags: 64 });
      return;
    }
    const name = i.commandName as CommandName;
    const sub = i.options.getSubcommand(false) ?? undefined;
    const raw = sub ? (i.options.data[0]?.options ?? []) : i.options.data;
    const values: Record<string, string | number | boolean | undefined> = {};
    for (const o of raw) if (o.value !== undefined && o.value !== null) values[o.name] = o.value;
    const args = argsFromOptions(name, sub, values);
    const responder = responderFor(i, !PUBLIC_COMMANDS.has(name));
    await withResponder(responder, async () => {
      const place = await placeOf(guildId, i.channelId);
      await core!.command(invocationOf(responder, place, interactionActor(i)), name, args);
    });
  }

  async function onButton(i: ButtonInteraction): Promise<void> {
    const parsed = await parseId(opts.store, i.customId);
    const guildId = guildOf(i.guildId) ?? '';
    if (parsed.kind === 'form-group') {
      const session = await loadOwnedForm(i, parsed.session);
      if (session) await i.showModal(modalOf(parsed.session, session, parsed.chunk, false));
      return;
    }
    if (parsed.kind === 'form-cancel') {
      const session = await loadOwnedForm(i, parsed.session);
      if (!session) return;
      await forms.delete(parsed.session);
      await i.update({ content: `${session.title}: cancelled.`, components: [], embeds: [] });
      return;
    }
    if (parsed.kind === 'unknown') {
      await i.reply({ content: 'This button has expired: run the command again.', flags: 64 });
      return;
    }
    const responder = responderFor(i, true);
    await withResponder(responder, async () => {
      const place = await placeOf(guildId, i.channelId);
      const actor = interactionActor(i);
      if (parsed.kind === 'action') {
        await core!.action(invocationOf(responder, place, actor), parsed.action, parsed.value);
        return;
      }
      const session = await forms.load(parsed.kind === 'form-submit' ? parsed.session : '');
      if (!session || session.userId !== actor.id) {
        await responder.reply(plain('This form has expired or belongs to someone else: run the command again.'), true);
        return;
      }
      if (parsed.kind === 'form-submit') await submitForm(responder, parsed.session, session, place, actor, true);
    });
  }

  async function onModal(i: ModalSubmitInteraction): Promise<void> {
    const parsed = await parseId(opts.store, i.customId);
    if (parsed.kind !== 'form-modal') {
      await i.reply({ content: 'This form has expired: run the command again.', flags: 64 });
      return;
    }
    const session = await loadOwnedForm(i, parsed.session);
    if (!session) return;
    for (const name of session.chunks[parsed.chunk]?.names ?? []) {
      try {
        session.values[name] = i.fields.getTextInputValue(name);
      } catch {
        // An input the modal did not carry keeps its earlier value.
      }
    }
    if (!session.done.includes(parsed.chunk)) session.done.push(parsed.chunk);
    await forms.save(parsed.session, session);
    const responder = responderFor(i, true);
    const guildId = guildOf(i.guildId) ?? '';
    await withResponder(responder, async () => {
      if (parsed.submit) {
        const place = await placeOf(guildId, i.channelId ?? '');
        await submitForm(responder, parsed.session, session, place, interactionActor(i), false);
        return;
      }
      if (!(await responder.update(panelMessage(parsed.session, session)))) await responder.reply(panelMessage(parsed.session, session), true);
    });
  }

  client.on(Events.InteractionCreate, (i) => {
    const run = async (): Promise<void> => {
      if (!core) {
        if (i.isRepliable()) await i.reply({ content: 'The bridge is starting: try again in a moment.', flags: 64 });
        return;
      }
      if (i.isChatInputCommand()) await onCommand(i);
      else if (i.isButton()) await onButton(i);
      else if (i.isModalSubmit()) await onModal(i);
      else if (i.isAutocomplete()) await i.respond([]);
    };
    run().catch((err: unknown) => log.error({ err: errInfo(err) }, 'discord: interaction failed'));
  });

  // ------------------------------------------------------------------ messages (raw gateway events)

  function mentionsBot(m: MessageCreate): boolean {
    return m.mentions.some((u) => u.id === botId) || m.content.includes(`<@${botId}>`) || m.content.includes(`<@!${botId}>`);
  }

  /** Without the DirectMessages intent every message is a guild's; a payload may still omit the id. */
  function guildOf(guildId: string | null | undefined): string | undefined {
    return guildId ?? opts.guildId ?? client.guilds.cache.first()?.id;
  }

  async function onMessage(m: MessageCreate): Promise<void> {
    const guildId = guildOf(m.guild_id);
    if (!core || !guildId) return;
    if (m.author.bot || m.webhook_id || m.author.id === botId) return;
    if (m.type !== undefined && m.type !== null && !USER_MESSAGE_TYPES.has(m.type)) return;
    const mentioned = mentionsBot(m);
    const text = m.content.split(`<@${botId}>`).join('').split(`<@!${botId}>`).join('').trim();
    const actor = actorOf({ id: m.author.id, username: m.author.username, globalName: m.author.global_name }, m.member?.nick, m.member?.roles ?? []);
    const attachments = m.attachments.map((a) => ({
      id: a.id,
      name: a.filename,
      mime: a.content_type ?? undefined,
      size: a.size ?? undefined,
      url: a.url,
    }));
    const parent = await threads.parentOf(m.channel_id);
    let place: Place;
    if (parent) {
      place = { surface: 'discord', workspace: guildId, channel: parent, thread: m.channel_id };
    } else if (mentioned) {
      const threadId = await port.createThread(m.channel_id, m.id, text || 'Conversation');
      place = { surface: 'discord', workspace: guildId, channel: m.channel_id, thread: threadId };
    } else {
      return;
    }
    await core.message({ place, actor, text, id: m.id, attachments, startsConversation: mentioned }, port);
  }

  client.on(Events.Raw, (packet: unknown) => {
    const p = rawPacketSchema.safeParse(packet);
    if (!p.success) return;
    if (p.data.t === 'MESSAGE_CREATE') {
      const m = messageCreateSchema.safeParse(p.data.d);
      if (!m.success) {
        log.warn({ issues: m.error.issues.length }, 'discord: ignored a malformed MESSAGE_CREATE');
        return;
      }
      onMessage(m.data).catch((err: unknown) => log.error({ err: errInfo(err) }, 'discord: message handling failed'));
    } else if (p.data.t === 'THREAD_CREATE') {
      const t = threadCreateSchema.safeParse(p.data.d);
      if (t.success && t.data.parent_id) void threads.remember(t.data.id, t.data.parent_id).catch(() => undefined);
    }
  });

  // ------------------------------------------------------------------ lifecycle

  async function registerCommands(): Promise<void> {
    const body = slashCommandDefinitions();
    const route = opts.guildId ? Routes.applicationGuildCommands(opts.applicationId, opts.guildId) : Routes.applicationCommands(opts.applicationId);
    await rest.put(route, { body });
    log.info({ commands: body.map((c) => c.name), scope: opts.guildId ? 'guild' : 'global' }, 'discord: slash commands registered');
  }

  return {
    surface: port,
    attach(c) {
      core = c;
    },
    async start() {
      const readyTimeoutMs = opts.readyTimeoutMs ?? 30_000;
      const readyOnce = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`Discord did not become ready within ${readyTimeoutMs} ms`)), readyTimeoutMs);
        client.once(Events.ClientReady, () => {
          clearTimeout(timer);
          resolve();
        });
      });
      try {
        await client.login(opts.token);
        await readyOnce;
      } catch (err) {
        // discord.js errors can quote the request; make sure the token is not in what we raise.
        const message = err instanceof Error ? err.message.split(opts.token).join('***') : 'login failed';
        throw new Error(`Discord login failed: ${message}`);
      }
      botId = client.user?.id ?? opts.applicationId;
      await registerCommands();
      ready = true;
      log.info({ user: client.user?.username }, 'discord: ready');
    },
    async stop() {
      ready = false;
      port.close();
      await client.destroy();
    },
    isReady() {
      return ready && client.isReady() && core !== undefined;
    },
    rateLimitEvents() {
      return rateLimits;
    },
  };
}
