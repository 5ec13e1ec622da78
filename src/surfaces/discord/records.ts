/**
 * The Discord surface's own records, every one in its tenant's part of the store (a server's
 * `t:discord:<guild>:`, a direct message's its user's own: core's `tenantOf` of the DM place), so a
 * server that removes the bot takes them with its part and none is found by reading other tenants'
 * keys. Each DM user is a tenant of its own (`@me:<DM channel>`): its marker, long buttons and forms
 * are in its part, not in one every DM shares. One place names them all, with the keys they had
 * before (state/moved-records.ts moves a record on its first use after an upgrade):
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
import { type ScopedKey, scoped, type TenantStore, tenantPrefix, tenantStore } from '../../state/tenant-store';

/** Discord's own name for "no guild" in its routes (`/channels/@me`): the workspace of a DM place. */
export const DM_WORKSPACE = '@me';

/** One Discord record: where it lives in its tenant's part, and where it lived before (newest first). */
export interface DiscordRecord {
  view: TenantStore;
  key: ScopedKey;
  legacy: readonly string[];
}

/**
 * The part of the store of a place's workspace: a server (its guild id), a DM user's own
 * (`@me:<DM channel>`), a user's private answers of a user install (`@me:u<user>`), or, for a
 * place with none, '@me'.
 */
export function discordPart(store: StateStore, workspace: string | null): TenantStore {
  return tenantStore(store, tenantOf({ surface: 'discord', workspace: workspace || DM_WORKSPACE }));
}

/**
 * The old keys of a record: its global key, and for a DM user's record also the part every DM
 * shared before each DM was a tenant of its own (`t:discord:@me:`), which is newer.
 */
function oldKeys(store: StateStore, workspace: string, key: ScopedKey, global: string): string[] {
  if (!workspace.startsWith(`${DM_WORKSPACE}:`)) return [global];
  return [`${tenantPrefix(discordPart(store, DM_WORKSPACE).tenant)}${key}`, global];
}

const record = (store: StateStore, workspace: string | null, key: ScopedKey, global: string): DiscordRecord => ({
  view: discordPart(store, workspace),
  key,
  legacy: oldKeys(store, workspace ?? '', key, global),
});

/** The workspace of a DM channel's places: the DM user's own tenant (direct-messages.ts). */
export function dmWorkspace(channel: string): string {
  return `${DM_WORKSPACE}:${channel}`;
}

/**
 * `workspace` below is the place's (Place.workspace): a guild id, a DM's `@me:<channel>`, or a user's
 * `@me:u<user>` for a private answer; a record is read and written in that tenant's part only.
 */
export const discordRecords = {
  dm: (store: StateStore, channel: string): DiscordRecord =>
    // The DM's own tenant: its marker is its record.
    record(store, dmWorkspace(channel), scoped('discord', 'dm', channel), `discord:dm:${channel}`),
  thread: (store: StateStore, guild: string, channel: string): DiscordRecord =>
    record(store, guild, scoped('discord', 'thread', channel), `discord:thread:${channel}`),
  button: (store: StateStore, workspace: string, key: string): DiscordRecord =>
    record(store, workspace, scoped('discord', 'button', key), `discord:button:${key}`),
  form: (store: StateStore, workspace: string, key: string): DiscordRecord =>
    record(store, workspace, scoped('discord', 'form', key), `discord:form:${key}`),
  interaction: (store: StateStore, workspace: string, interactionId: string): DiscordRecord =>
    record(store, workspace, scoped('discord', 'ix', interactionId), `discord:ix:${interactionId}`),
  privateMessage: (store: StateStore, workspace: string, messageId: string): DiscordRecord =>
    record(store, workspace, scoped('discord', 'ixm', messageId), `discord:ixm:${messageId}`),
  noted: (store: StateStore, guild: string): DiscordRecord =>
    record(store, guild, scoped('discord', 'noted'), `discord:guild:${guild}:noted`),
};
