/**
 * A workspace leaves: `app_uninstalled`, or `tokens_revoked` naming the bot's token. Its installation
 * is deleted, then every record of the state store whose key names the workspace (conversations,
 * transcripts, tickets, settings, votes... are keyed by team id), and its cached client is dropped.
 * A re-install starts clean. Logged once: the second of the two events finds nothing left.
 * Bolt delivers both events without authorize (the installation may be gone already).
 */
import type { App } from '@slack/bolt';
import type { Logger } from 'pino';
import type { StateStore } from '../../../state/store';
import type { TeamClients } from '../clients';
import { INSTALLATION_PREFIX, type SlackInstallations } from './installations';

export interface LeavingDeps {
  app: App;
  installations: SlackInstallations;
  store: StateStore;
  clients: TeamClients;
  log: Logger;
}

/** A conversation's own keys carry its id, not the team's: `conv:<id>...`, `convstarted:<id>:...`. */
const CONVERSATION_KEY = /^(?:conv|convstarted|convpending):([^:]+)/;

/**
 * Deletes what the store keeps for `id` (a team or enterprise id): every key that names it, every
 * value that names it (a conversation's record holds its place, whose workspace it is), and the keys
 * of those conversations. Queue items, leases and rate logs are not listed by `keys` and age out.
 */
async function purgeRecords(store: StateStore, id: string): Promise<number> {
  const all = (await store.keys('')).filter((k) => !k.startsWith(INSTALLATION_PREFIX));
  const doomed = new Set<string>();
  const conversations = new Set<string>();
  for (const key of all) {
    if (!key.includes(id) && !JSON.stringify((await store.get(key)) ?? null).includes(`"${id}"`)) continue;
    doomed.add(key);
    const conv = /^conv:([^:]+)$/.exec(key);
    if (conv) conversations.add(conv[1]);
  }
  for (const key of all) {
    const conv = CONVERSATION_KEY.exec(key);
    if (conv && conversations.has(conv[1])) doomed.add(key);
  }
  for (const key of doomed) await store.delete(key);
  return doomed.size;
}

export async function forgetWorkspace(
  d: Omit<LeavingDeps, 'app'>,
  who: { teamId?: string; enterpriseId?: string; isEnterpriseInstall?: boolean },
  why: string,
): Promise<void> {
  const id = who.isEnterpriseInstall || !who.teamId ? who.enterpriseId : who.teamId;
  if (!id) return;
  const installed = await d.installations.remove(
    who.isEnterpriseInstall || !who.teamId ? { enterpriseId: id, isEnterpriseInstall: true } : { teamId: id },
  );
  d.clients.forget(id);
  const records = await purgeRecords(d.store, id);
  if (installed || records > 0)
    d.log.info({ workspace: id, why, records }, 'slack: workspace left: its data is deleted');
  else d.log.debug({ workspace: id, why }, 'slack: workspace already gone');
}

export function registerLeaving(d: LeavingDeps): void {
  d.app.event('app_uninstalled', async ({ context }) => {
    await forgetWorkspace(d, context, 'app_uninstalled');
  });
  d.app.event('tokens_revoked', async ({ event, context }) => {
    // Only the bot's token matters: the bridge keeps no user tokens.
    if ((event.tokens.bot ?? []).length === 0) return;
    await forgetWorkspace(d, context, 'tokens_revoked');
  });
}
