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
 */
import { type Client, type Guild, type GuildBasedChannel, OverwriteType, PermissionFlagsBits } from 'discord.js';
import type { Logger } from 'pino';
import type { DiscordGateway } from './gateway';
import { errInfo } from './responder';

const ROLES_REFETCH_MS = 60_000;

export class ChannelMembers {
  private readonly rolesFetchedAt = new Map<string, number>();

  constructor(
    private readonly client: Client,
    private readonly gateway: DiscordGateway,
    private readonly log: Logger,
  ) {}

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
    if (!unknown || Date.now() - (this.rolesFetchedAt.get(guild.id) ?? 0) < ROLES_REFETCH_MS) return;
    this.rolesFetchedAt.set(guild.id, Date.now());
    await this.gateway.global({}, () => guild.roles.fetch());
  }
}
