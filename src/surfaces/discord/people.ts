/**
 * Who acts: a Discord user (and, in a guild, their member) as core's Actor. Admins are the members
 * holding one of DISCORD_ADMIN_ROLES, and the server's own admins: members with Manage Server.
 *
 * `GuildMember.roles.cache` only lists roles the guild's role cache knows, and GUILD_CREATE may not
 * list them all (a faithful Discord may send only @everyone, or not yet a role created a moment
 * ago). So the guild's roles are fetched (`guild.roles.fetch()`, public REST) when the client is
 * ready and again when a configured admin role is missing from the cache (at most once a minute per
 * guild); discord.js keeps the cache current from then on (GUILD_ROLE_CREATE/UPDATE/DELETE).
 */
import {
  type APIInteractionGuildMember,
  type Guild,
  type GuildMember,
  PermissionFlagsBits,
  PermissionsBitField,
  type User,
} from 'discord.js';
import type { Logger } from 'pino';
import type { Actor } from '../../core/surface';
import { errInfo } from './responder';
import { GuildThrottle } from './throttle';

const REFETCH_MS = 60_000;

export class People {
  /** When each guild's roles were last fetched (the last minute's only: throttle.ts). */
  private readonly refetch = new GuildThrottle(REFETCH_MS);

  constructor(
    private readonly adminRoles: string[],
    private readonly log: Logger,
  ) {}

  /** Fills the guild's role cache when it misses a configured admin role. */
  async learnRoles(guild: Guild): Promise<void> {
    if (this.adminRoles.every((id) => guild.roles.cache.has(id))) return;
    if (!this.refetch.take(guild.id)) return;
    try {
      await guild.roles.fetch();
    } catch (err) {
      this.log.warn({ err: errInfo(err), guild: guild.id }, 'discord: could not fetch the guild roles');
    }
  }

  /**
   * The actor of a user, with their member when the event came from a guild: a cached guild gives a
   * GuildMember, an uncached one the API's member object (whose `roles` is the list of role ids).
   * `permissions`: what Discord computed for an interaction (Manage Server makes a server admin).
   */
  async actorOf(
    user: User,
    member: GuildMember | APIInteractionGuildMember | null | undefined,
    permissions?: Readonly<PermissionsBitField> | null,
  ): Promise<Actor> {
    if (!member) return { id: user.id, name: user.displayName, isAdmin: false };
    if ('guild' in member) {
      await this.learnRoles(member.guild);
      const perms = permissions ?? member.permissions;
      return {
        id: user.id,
        name: member.displayName,
        isAdmin: this.adminRoles.some((id) => member.roles.cache.has(id)) || perms.has(PermissionFlagsBits.ManageGuild),
      };
    }
    const perms = permissions ?? new PermissionsBitField(BigInt(member.permissions));
    return {
      id: user.id,
      name: member.nick || user.displayName,
      isAdmin: member.roles.some((id) => this.adminRoles.includes(id)) || perms.has(PermissionFlagsBits.ManageGuild),
    };
  }
}
