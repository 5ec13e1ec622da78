/**
 * The Discord surface (discord.js v14): wires the client's events to the inbound parts and core's
 * calls to the port. Interactions (interactions.ts, form-flow.ts) and messages (messages.ts) come
 * in through discord.js's events; everything going out is rendered (render.ts) and sent by the
 * port (port.ts), with DM conversations mapped to their channel (direct-messages.ts).
 */
import { Client, Events, GatewayIntentBits, Partials, Routes } from 'discord.js';
import type { Logger } from 'pino';
import { type BridgeCore, MAX_RETRY_AFTER_MS } from '../../core/surface';
import type { StateStore } from '../../state/store';
import type { SurfaceRuntime } from '../runtime';
import { slashCommandDefinitions } from './commands';
import { DirectMessagePort, DirectMessages } from './direct-messages';
import { FormFlow } from './form-flow';
import { CheckedShardingStrategy } from './gateway-strategy';
import { watchGuilds } from './guilds';
import type { Inbound } from './inbound';
import { Interactions } from './interactions';
import { Messages } from './messages';
import { People } from './people';
import { DiscordPort } from './port';
import { errInfo } from './responder';

export interface DiscordSurfaceOptions {
  token: string;
  applicationId: string;
  guildId?: string;
  /** REST base without the version (discord.js `rest.api`), e.g. http://127.0.0.1:9000/api. */
  apiUrl?: string;
  /** Role ids whose members are admins. */
  adminRoles: string[];
  handoffChannel?: string;
  /**
   * Told the server DISCORD_HANDOFF_CHANNEL belongs to, once logged in: a ticket of another server
   * must not be posted there (the bot's token would let it).
   */
  onHandoffGuild?: (guildId: string) => void;
  store: StateStore;
  log: Logger;
  /** Defer an interaction core has not answered after this long (default 1,500 ms; Discord allows 3 s). */
  deferAfterMs?: number;
  /** Give up waiting for the gateway's READY after this long (default 30 s). */
  readyTimeoutMs?: number;
  /** The bridge's clock (core's): when a private answer's interaction token ends, what day it is for a once-a-day note. */
  now?: () => number;
}

export interface DiscordRuntime extends SurfaceRuntime {
  /** How many times discord.js reported a rate limit (429 or a pre-emptive wait). */
  rateLimitEvents(): number;
}

/** DISCORD_API_URL as discord.js's `rest.api` takes it: no trailing slash, no version (it adds /v10). */
export function restBase(apiUrl: string): string {
  return apiUrl.replace(/\/+$/, '').replace(/\/v\d+$/, '');
}

function sanitizeRoute(route: string): string {
  return route.replace(/\/(webhooks|interactions)\/[^/]+\/[^/]+/, '/$1/:id/:token');
}

export function createDiscordSurface(opts: DiscordSurfaceOptions): DiscordRuntime {
  const log = opts.log;
  const client = newClient(opts);
  const rest = client.rest;
  const port = new DiscordPort(rest, opts.store, log, client, opts.now);
  const threads = port.threads;
  const dms = new DirectMessages(opts.store, (id) => {
    const channel = client.channels.cache.get(id);
    return channel && 'guildId' in channel ? (channel.guildId ?? undefined) : undefined;
  });
  const surface = new DirectMessagePort(port, dms);
  let core: BridgeCore | undefined;
  let ready = false;
  let botId = opts.applicationId;

  const inbound: Inbound = {
    port,
    surface,
    store: opts.store,
    log,
    threads,
    replies: port.replies,
    dms,
    people: new People(opts.adminRoles, log),
    openForm: (responder, form, actor) => forms.open(responder, form, actor),
    core: () => core,
    botId: () => botId,
    deferAfterMs: opts.deferAfterMs ?? 1500,
  };
  const forms = new FormFlow(inbound);
  const interactions = new Interactions(inbound, forms);
  const messages = new Messages(inbound);

  client.on(Events.InteractionCreate, (i) => interactions.handle(i));
  // Every server the bot is invited to: a setup note on joining, its records deleted on leaving.
  watchGuilds({ client, port, store: opts.store, log, core: () => core });
  client.on(Events.MessageCreate, (m) => messages.handle(m));
  client.on(Events.ThreadCreate, (thread) => {
    if (thread.parentId)
      threads
        .remember(thread.guildId, thread.id, thread.parentId)
        .catch((err: unknown) => log.warn({ err: errInfo(err) }, 'discord: could not remember a thread'));
  });
  const rateLimits = logClientEvents(client, opts);

  return {
    surface,
    attach(c) {
      core = c;
    },
    async start() {
      await logIn(client, opts);
      botId = client.user?.id ?? opts.applicationId;
      await registerCommands(client, opts);
      await learnHandoffGuild(client, opts);
      await Promise.all(client.guilds.cache.map((guild) => inbound.people.learnRoles(guild)));
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
    rateLimitEvents: rateLimits,
  };
}

/** Which server the handoff channel is in (a channel Discord cannot show is left unknown, and logged). */
async function learnHandoffGuild(client: Client, opts: DiscordSurfaceOptions): Promise<void> {
  if (!opts.handoffChannel || !opts.onHandoffGuild) return;
  const channel = await client.channels.fetch(opts.handoffChannel).catch(() => null);
  if (channel && 'guildId' in channel && channel.guildId) opts.onHandoffGuild(channel.guildId);
  else opts.log.warn({ channel: opts.handoffChannel }, 'discord: the handoff channel’s server is not known');
}

/** The token never reaches a log or an error: discord.js messages can quote the request. */
function secretFree(opts: DiscordSurfaceOptions, text: string): string {
  return text.split(opts.token).join('***');
}

function newClient(opts: DiscordSurfaceOptions): Client {
  return new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.DirectMessages,
    ],
    // DM channels are not in the cache until discord.js has seen one: without this partial their
    // messages would be dropped.
    partials: [Partials.Channel],
    // Any reply discord.js sends without its own allowed_mentions (static notices) pings nobody.
    allowedMentions: { parse: [] },
    // A Retry-After past the ceiling is not slept through inside discord.js: the call fails as a
    // 429 (RateLimitError, then PlatformRateLimitError) that its caller handles.
    rest: {
      ...(opts.apiUrl ? { api: restBase(opts.apiUrl) } : {}),
      rejectOnRateLimit: (info) => Math.max(info.retryAfter, info.sublimitTimeout) > MAX_RETRY_AFTER_MS,
    },
    ws: {
      buildStrategy: (manager) =>
        new CheckedShardingStrategy(manager, (err, event) => {
          opts.log.warn(
            { err: errInfo(err), event: event.dispatch ?? event.name, shard: event.shardId },
            'discord: dropped a malformed gateway packet (discord.js could not handle it)',
          );
        }),
    },
  });
}

/** Logs the client's errors, warnings and rate limits; returns how many rate limits it reported so far. */
function logClientEvents(client: Client, opts: DiscordSurfaceOptions): () => number {
  const log = opts.log;
  let rateLimits = 0;
  client.on(Events.Error, (err) => log.error({ err: errInfo(err) }, 'discord: client error'));
  client.on(Events.ShardError, (err, shard) =>
    log.warn({ err: errInfo(err), shard }, 'discord: gateway connection error'),
  );
  client.on(Events.Warn, (message) => log.warn({ message: secretFree(opts, message) }, 'discord: warning'));
  client.rest.on('rateLimited', (info) => {
    rateLimits += 1;
    log.warn(
      {
        route: sanitizeRoute(info.route),
        method: info.method,
        limit: info.limit,
        timeToReset: info.timeToReset,
        global: info.global,
        scope: info.scope,
      },
      'discord: rate limited',
    );
  });
  return () => rateLimits;
}

/** Logs in and waits for the gateway's READY (at most `readyTimeoutMs`). */
async function logIn(client: Client, opts: DiscordSurfaceOptions): Promise<void> {
  const readyTimeoutMs = opts.readyTimeoutMs ?? 30_000;
  const readyOnce = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`Discord did not become ready within ${readyTimeoutMs} ms`)),
      readyTimeoutMs,
    );
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
    throw new Error(`Discord login failed: ${err instanceof Error ? secretFree(opts, err.message) : 'login failed'}`);
  }
}

async function registerCommands(client: Client, opts: DiscordSurfaceOptions): Promise<void> {
  const app = opts.applicationId;
  if (opts.guildId) {
    const body = slashCommandDefinitions('guild');
    await client.rest.put(Routes.applicationGuildCommands(app, opts.guildId), { body });
    // Guild commands never show in DMs: the DM ones are global, limited to the bot's DMs.
    await client.rest.put(Routes.applicationCommands(app), { body: slashCommandDefinitions('dm') });
    opts.log.info({ commands: body.map((c) => c.name), scope: 'guild' }, 'discord: slash commands registered');
    return;
  }
  const body = slashCommandDefinitions('global');
  await client.rest.put(Routes.applicationCommands(app), { body });
  opts.log.info({ commands: body.map((c) => c.name), scope: 'global' }, 'discord: slash commands registered');
}
