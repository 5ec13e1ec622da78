/**
 * The Discord surface's own records, every one in its tenant's part of the store (a server's
 * `t:discord:<guild>:`, a direct message's the DMs' tenant: core's `tenantOf` of the DM place), so a
 * server that removes the bot takes them with its part and none is found by reading other tenants'
 * keys. One place names them all, with the global keys they had before (state/moved-records.ts moves
 * a record on its first use after an upgrade):
 * - `discord:dm:<channel>`: a DM channel's current conversation (its marker);
 * - `discord:thread:<channel>`: whether a channel is a thread, and its parent;
 * - `discord:button:<key>`: a button whose action and value do not fit its custom id;
 * - `discord:form:<key>`: a form's values between its modals;
 * - `discord:noted`: the server's setup note was posted (once, whichever instance joins first);
 * - `discord:ix:<interaction>`: a private conversation's interaction token (user installs: its 15
 *   minutes, in the DMs' part, whose workspace its place is);
 * - `discord:ixm:<message>`: which private conversation an ephemeral message of it belongs to (a
 *   button pressed on it hands the conversation the press's own token).
 * Channel viewers' cached lookups are `cache:` keys of the same part (surfaces/tenant-cache.ts).
 */
import { tenantOf } from '../../core/tenants/tenant';
import type { StateStore } from '../../state/store';
import { type ScopedKey, scoped, type TenantStore, tenantStore } from '../../state/tenant-store';

/** Discord's own name for "no guild" in its routes (`/channels/@me`): the workspace of a DM place. */
export const DM_WORKSPACE = '@me';

/** One Discord record: where it lives in its tenant's part, and where it lived before. */
export interface DiscordRecord {
  view: TenantStore;
  key: ScopedKey;
  legacy: string;
}

/** The part of the store of a server (`guild`), or of direct messages (null or '@me'). */
export function discordPart(store: StateStore, guild: string | null): TenantStore {
  return tenantStore(store, tenantOf({ surface: 'discord', workspace: guild || DM_WORKSPACE }));
}

const record = (store: StateStore, guild: string | null, key: ScopedKey, legacy: string): DiscordRecord => ({
  view: discordPart(store, guild),
  key,
  legacy,
});

export const discordRecords = {
  dm: (store: StateStore, channel: string): DiscordRecord =>
    // The DM's own tenant (`@me:<channel>`, direct-messages.ts): its marker is its record.
    record(store, `${DM_WORKSPACE}:${channel}`, scoped('discord', 'dm', channel), `discord:dm:${channel}`),
  thread: (store: StateStore, guild: string, channel: string): DiscordRecord =>
    record(store, guild, scoped('discord', 'thread', channel), `discord:thread:${channel}`),
  button: (store: StateStore, guild: string | null, key: string): DiscordRecord =>
    record(store, guild, scoped('discord', 'button', key), `discord:button:${key}`),
  form: (store: StateStore, guild: string | null, key: string): DiscordRecord =>
    record(store, guild, scoped('discord', 'form', key), `discord:form:${key}`),
  interaction: (store: StateStore, interactionId: string): DiscordRecord =>
    record(store, null, scoped('discord', 'ix', interactionId), `discord:ix:${interactionId}`),
  privateMessage: (store: StateStore, messageId: string): DiscordRecord =>
    record(store, null, scoped('discord', 'ixm', messageId), `discord:ixm:${messageId}`),
  noted: (store: StateStore, guild: string): DiscordRecord =>
    record(store, guild, scoped('discord', 'noted'), `discord:guild:${guild}:noted`),
};
