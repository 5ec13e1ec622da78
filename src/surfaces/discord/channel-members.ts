/**
 * Who is "a member" of a Discord channel: a guild channel has no member list, so its members are the
 * guild members who can view it (their roles' permissions with the channel's overwrites applied,
 * as discord.js's `permissionsFor` computes them). Core asks this to tell handoff agents from others.
 *
 * The channel, the member and the guild's roles come from discord.js's cache: the invoker's member
 * is fresh there (every interaction carries it), channels and roles are kept current by the Guilds
 * intent's events. What the cache lacks is fetched (public REST, through the gateway's global
 * budget). A role an overwrite names but the cache does not know (GUILD_CREATE may list only some)
 * makes the guild's roles be fetched, at most once a minute per guild: without the role, its
 * overwrite would be silently skipped and an agent refused.
 *
 * A channel's viewers (the round-robin roster) are cached in the guild's part of the state store
 * (surfaces/tenant-cache.ts), not in this process: every instance offers tickets from the same
 * roster, and a server that removes the bot takes its members' copies with it. discord.js's own
 * caches (the guild's members, channels and roles) go with the guild when it leaves (GUILD_DELETE).
 */
import {
  type Client,
  DiscordAPIError,
  type Guild,
  type GuildBasedChannel,
  type GuildMember,
  OverwriteType,
  PermissionFlagsBits,
  type PermissionsString,
} from 'discord.js';
import type { Logger } from 'pino';
import type { StateStore } from '../../state/store';
import { type Fetched, TenantCache } from '../tenant-cache';
import type { DiscordGateway } from './gateway';
import { errInfo } from './responder';
import { GuildThrottle } from './throttle';

const ROLES_REFETCH_MS = 60_000;
/** How long a channel's viewers (the round-robin roster) are kept before they are listed again. */
const VIEWERS_TTL_MS = 60_000;
/** List Guild Members' largest page, and how many pages are read at most (50,000 members). */
const PAGE = 1000;
const MAX_PAGES = 50;

/** A person who can view a channel, as the round-robin roster takes them. */
export type Viewer = {
  id: string;
  name: string;
};

export class ChannelMembers {
  /** When each guild's roles were last fetched (the last minute's only: throttle.ts). */
  private readonly rolesRefetch = new GuildThrottle(ROLES_REFETCH_MS);
  /** Per guild and channel (its part of the store): the viewers, null where Discord refused the listing. */
  private readonly viewersOf: TenantCache<Viewer[] | null>;
  private refusedSaid = false;

  constructor(
    private readonly client: Client,
    store: StateStore,
    private readonly gateway: DiscordGateway,
    private readonly log: Logger,
    now: () => number = Date.now,
  ) {
    this.viewersOf = new TenantCache(store, 'discord', 'viewers', now);
  }

  /**
   * Everyone who can view the channel, bots and the bridge left out, in user-id order: the guild's
   * members (List Guild Members, paged, through the global budget) with `permissionsFor` applied.
   * Listing members needs the privileged Server Members Intent enabled for the app in the developer
   * portal (not requested on the gateway: a disallowed intent would close it). Without it Discord
   * answers 403; that is said once in the log, and undefined is returned (core then takes turns among
   * the agents who claimed or said /handoff away|back). Cached for a minute, the refusal too: the
   * sweep asks for every open ticket, and Discord counts refused calls toward its invalid-request
   * ban. The listing in flight is shared, so tickets offered together list the guild once.
   */
  async viewers(channelId: string): Promise<Viewer[] | undefined> {
    let channel: GuildBasedChannel | undefined;
    try {
      channel = await this.channel(channelId);
    } catch (err) {
      this.log.debug({ err: errInfo(err), channel: channelId }, "discord: could not list the channel's viewers");
    }
    if (!channel) return undefined;
    const found = channel;
    return (await this.viewersOf.get(found.guild.id, channelId, () => this.listViewers(found))) ?? undefined;
  }

  /** The viewers, or null kept a while where Discord refused; undefined (kept by nobody) otherwise. */
  private async listViewers(channel: GuildBasedChannel): Promise<Fetched<Viewer[] | null>> {
    const channelId = channel.id;
    let listing = false;
    try {
      await this.learnOverwriteRoles(channel);
      listing = true;
      const members = await this.listMembers(channel.guild);
      const self = this.client.user?.id;
      const value = members
        .filter((m) => !m.user.bot && m.id !== self && channel.permissionsFor(m).has(PermissionFlagsBits.ViewChannel))
        .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))
        .map((m) => ({ id: m.id, name: m.displayName }));
      return { value, ttlMs: VIEWERS_TTL_MS };
    } catch (err) {
      // A 403 from List Guild Members: the intent is not enabled (Missing Access).
      const refused = listing && err instanceof DiscordAPIError && err.status === 403;
      if (refused && !this.refusedSaid) {
        this.refusedSaid = true;
        this.log.warn(
          { err: errInfo(err), channel: channelId },
          'discord: cannot list who can view the handoff channel (enable the Server Members Intent for the app in the developer portal); round-robin takes turns among agents who claimed or said /handoff away|back',
        );
      } else if (!refused) {
        this.log.debug({ err: errInfo(err), channel: channelId }, "discord: could not list the channel's viewers");
      }
      // Anything but a refusal (Discord unreachable, the channel gone) is asked again on the next sweep.
      return refused ? { value: null, ttlMs: VIEWERS_TTL_MS } : undefined;
    }
  }

  private async listMembers(guild: Guild): Promise<GuildMember[]> {
    const members: GuildMember[] = [];
    let after = '0';
    for (let page = 0; page < MAX_PAGES; page++) {
      const got = await this.gateway.global({}, () => guild.members.list({ limit: PAGE, after, cache: true }));
      members.push(...got.values());
      if (got.size < PAGE) break;
      after = got.lastKey() ?? after;
    }
    return members;
  }

  /** Whether the user can view the channel; undefined when that cannot be told (never throws). */
  async canView(channelId: string, userId: string): Promise<boolean | undefined> {
    try {
      const channel = await this.channel(channelId);
      if (!channel) return undefined;
      await this.learnOverwriteRoles(channel);
      const member =
        channel.guild.members.cache.get(userId) ??
        (await this.gateway.global({}, () => channel.guild.members.fetch(userId)));
      return channel.permissionsFor(member).has(PermissionFlagsBits.ViewChannel);
    } catch (err) {
      // An unknown member (10007) or channel, or Discord unreachable: not known, not "no".
      this.log.debug({ err: errInfo(err), channel: channelId }, 'discord: could not tell who can view the channel');
      return undefined;
    }
  }

  /**
   * Why the bot cannot post in the channel (unknown, not a text channel, no permission), naming it and
   * the fix; undefined: it can.
   */
  async cannotPost(channelId: string, guildId: string): Promise<string | undefined> {
    const channel = await this.channel(channelId).catch(() => undefined);
    if (!channel || channel.guild.id !== guildId)
      return "this server has no such channel that the bot can see. Pick one of this server's text channels.";
    if (!channel.isTextBased()) return `#${channel.name} is not a text channel.`;
    const me = channel.guild.members.me;
    const perms = me ? channel.permissionsFor(me) : undefined;
    if (!perms?.has([PermissionFlagsBits.ViewChannel, PermissionFlagsBits.SendMessages]))
      return `the bot may not view or send messages in #${channel.name}. Give the bot View Channel and Send Messages there (the channel's Edit Channel → Permissions), or pick another channel.`;
    return undefined;
  }

  /**
   * The first of `flags` the bot lacks in the channel (discord.js's names, e.g. 'CreatePublicThreads'),
   * as its cache computes them; undefined when it holds them all or that cannot be told (never throws).
   */
  async botLacks(channelId: string, flags: readonly bigint[]): Promise<PermissionsString | undefined> {
    try {
      const channel = await this.channel(channelId);
      const me = channel?.guild.members.me;
      return me ? channel.permissionsFor(me).missing([...flags])[0] : undefined;
    } catch (err) {
      this.log.debug({ err: errInfo(err), channel: channelId }, "discord: could not read the bot's permissions");
      return undefined;
    }
  }

  private async channel(channelId: string): Promise<GuildBasedChannel | undefined> {
    const channel =
      this.client.channels.cache.get(channelId) ??
      (await this.gateway.global({}, () => this.client.channels.fetch(channelId)));
    return channel && !channel.isDMBased() ? channel : undefined;
  }

  private async learnOverwriteRoles(channel: GuildBasedChannel): Promise<void> {
    if (channel.isThread()) return;
    const guild: Guild = channel.guild;
    const unknown = channel.permissionOverwrites.cache.some(
      (o) => o.type === OverwriteType.Role && !guild.roles.cache.has(o.id),
    );
    if (!unknown || !this.rolesRefetch.take(guild.id)) return;
    await this.gateway.global({}, () => guild.roles.fetch());
  }
}
