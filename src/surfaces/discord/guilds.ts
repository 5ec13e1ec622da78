/**
 * Many servers: the bot serves every guild it is invited to.
 *
 * - Joining (discord.js's `Events.GuildCreate`, which it emits only for a guild it did not know: not
 *   for those READY listed, nor for an unavailable guild becoming available, which are
 *   `Events.GuildAvailable`) posts a short setup note to the guild's system channel, when the bot may
 *   view and write there; otherwise it skips the note and logs that once. The note goes through the
 *   port (the surface's one outbound path: budgets, neutralised text), once per guild whichever
 *   instance sees the event first.
 * - Leaving (`Events.GuildDelete`, which discord.js emits only for a guild the bot was removed from;
 *   an outage arrives as `Events.GuildUnavailable` and deletes nothing) is core's `leave`: the guild's
 *   answers in flight stop on every instance, and its records are deleted, plus the Discord surface's
 *   own keys of the guild's channels.
 */
import { Events, type Client, type Guild, PermissionFlagsBits } from 'discord.js';
import type { Logger } from 'pino';
import type { BridgeCore, Place } from '../../core/surface';
import { claimMoving } from '../../state/moved-records';
import type { StateStore } from '../../state/store';
import { discordRecords } from './records';
import type { DiscordPort } from './port';
import { errInfo } from './responder';

/** One note per guild join, whichever instance handles the event (several may be connected). */
const NOTED_TTL_MS = 3_600_000;
/** Where thread records were kept before they lived in their server's part (records.ts). */
const LEGACY_THREAD_PREFIX = 'discord:thread:';

const SETUP_NOTE = [
  '**Hello! I am the chatbot bridge.** I answer questions with your office’s real-estate chatbot, in threads, and hand a conversation to a person when asked.',
  '',
  '• An admin (Manage Server) runs `/chatbot connect` to connect this server to its chatbot and choose the handoff channel.',
  '• Anyone can then ask with `/ask`, or mention me.',
  '• `/help` lists every command.',
].join('\n');

export interface GuildDeps {
  client: Client;
  port: DiscordPort;
  store: StateStore;
  log: Logger;
  core: () => BridgeCore | undefined;
}

/** Where the note may go: the system channel, when the bot may view it and send there. */
function noteChannel(guild: Guild): { id: string } | { skip: string } {
  const channel = guild.systemChannel;
  if (!channel) return { skip: 'the server has no system channel' };
  const me = guild.members.me;
  const perms = me ? channel.permissionsFor(me) : null;
  if (!perms?.has([PermissionFlagsBits.ViewChannel, PermissionFlagsBits.SendMessages]))
    return { skip: 'no permission to view and send in the system channel' };
  return { id: channel.id };
}

async function postSetupNote(d: GuildDeps, guild: Guild): Promise<void> {
  const where = noteChannel(guild);
  if ('skip' in where) {
    d.log.info({ guild: guild.id, why: where.skip }, 'discord: joined a server; no setup note');
    return;
  }
  const r = discordRecords.noted(d.store, guild.id);
  if (!(await claimMoving(d.store, r.view, r.key, r.legacy, Date.now(), NOTED_TTL_MS))) return;
  const place: Place = { surface: 'discord', workspace: guild.id, channel: where.id };
  await d.port.post(place, { text: SETUP_NOTE, markdown: true });
  d.log.info({ guild: guild.id, channel: where.id }, 'discord: joined a server; setup note posted');
}

/**
 * The Discord surface's records of a guild live in its part of the store and go with it; what is
 * found here are the global keys of before that name it (not yet moved since an upgrade): its note
 * mark and the thread records of its channels.
 */
async function discordKeysOf(store: StateStore, guild: Guild, places: Place[], unindexed: boolean) {
  // Every record of the server is in its part of the store; an older version's are looked for while they may remain.
  if (!unindexed) return [];
  const channels = new Set<string>(guild.channels.cache.keys());
  for (const p of places) {
    channels.add(p.channel);
    if (p.thread) channels.add(p.thread);
  }
  const out = [...discordRecords.noted(store, guild.id).legacy];
  for (const key of await store.keys(LEGACY_THREAD_PREFIX)) {
    const parent = await store.get(key);
    if (channels.has(key.slice(LEGACY_THREAD_PREFIX.length)) || (typeof parent === 'string' && channels.has(parent)))
      out.push(key);
  }
  return out;
}

async function leaveGuild(d: GuildDeps, guild: Guild): Promise<void> {
  const core = d.core();
  if (!core?.leave) throw new Error('a server left before the bridge was attached');
  // Logged by core once something was stopped or deleted: every connected instance sees the event.
  await core.leave({
    surface: 'discord',
    workspace: guild.id,
    why: 'GUILD_DELETE',
    surfaceKeys: (places, unindexed) => discordKeysOf(d.store, guild, places, unindexed),
  });
}

/** Listens for the bot joining and leaving servers. */
export function watchGuilds(d: GuildDeps): void {
  d.client.on(Events.GuildCreate, (guild) => {
    postSetupNote(d, guild).catch((err: unknown) =>
      d.log.warn({ err: errInfo(err), guild: guild.id }, 'discord: could not post the setup note'),
    );
  });
  // An outage: Discord's GUILD_DELETE with `unavailable`. The bot is still in the server.
  d.client.on(Events.GuildUnavailable, (guild) =>
    d.log.warn({ guild: guild.id }, 'discord: a server is unavailable (an outage); its records are kept'),
  );
  d.client.on(Events.GuildDelete, (guild) => {
    leaveGuild(d, guild).catch((err: unknown) =>
      d.log.error({ err: errInfo(err), guild: guild.id }, 'discord: could not delete a server’s records'),
    );
  });
}
