/**
 * The fake Discord's permission check for the bot in a guild channel, by Discord's rule (Permissions,
 * "Permission Overwrites"): the @everyone role's permissions, then the channel's @everyone overwrite
 * (deny, then allow), then the member's own overwrite. The bot holds no roles of its own in the fake.
 * What Discord answers when the bot lacks one: 403 `{ code: 50013, message: 'Missing Permissions' }`,
 * which names no permission (the bot must work out which one itself).
 */
import type { FakeOverwrite } from './fake-discord';

/** Discord's CREATE_PUBLIC_THREADS permission bit (1 << 35). */
export const CREATE_PUBLIC_THREADS = 1n << 35n;

/** The @everyone role's permissions the fake's GUILD_CREATE lists. */
export const EVERYONE_PERMISSIONS = '1071698660929';

/** Discord's refusal of a call the bot lacks a permission for. */
export const MISSING_PERMISSIONS = { code: 50013, message: 'Missing Permissions' } as const;

/** Whether the bot (`botId`, no roles) holds `bit` in a channel of `guildId` with `overwrites`. */
export function botHas(guildId: string, botId: string, overwrites: readonly FakeOverwrite[], bit: bigint): boolean {
  let perms = BigInt(EVERYONE_PERMISSIONS);
  for (const id of [guildId, botId]) {
    const o = overwrites.find((x) => x.id === id);
    if (o) perms = (perms & ~BigInt(o.deny)) | BigInt(o.allow);
  }
  return (perms & bit) === bit;
}
