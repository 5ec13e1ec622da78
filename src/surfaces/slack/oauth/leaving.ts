/**
 * A workspace leaves: `app_uninstalled`, or `tokens_revoked` naming the bot's token. Its installation
 * is deleted, then every record of it, through core's `forgetTenant` (its part of the store, its
 * conversations, transcripts, tickets, votes...) and the Slack keys that name it, and its cached
 * client is dropped.
 * A re-install starts clean. Logged once: the second of the two events finds nothing left.
 * Bolt delivers both events without authorize (the installation may be gone already).
 */
import type { App } from '@slack/bolt';
import type { Logger } from 'pino';
import type { StateStore } from '../../../state/store';
import { tenantFor } from '../../../state/tenant-store';
import { forgetTenant } from '../../../core/tenants/forget';
import type { TeamClients } from '../clients';
import { INSTALLATION_PREFIX, type SlackInstallations } from './installations';

export interface LeavingDeps {
  app: App;
  installations: SlackInstallations;
  store: StateStore;
  clients: TeamClients;
  log: Logger;
}

/**
 * The Slack surface's own keys of the workspace (assistant threads, agent contexts, event dedupe, the
 * org's team marks...): every `slack:` key that names it, the installation aside (removed above).
 */
async function slackKeysOf(store: StateStore, id: string): Promise<string[]> {
  return (await store.keys('slack:')).filter(
    (k) => !k.startsWith(INSTALLATION_PREFIX) && k.split(':').some((part) => decodeURIComponent(part) === id),
  );
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
  // Core's records of the tenant (its own part of the store, conversations, tickets, votes...) and the
  // Slack surface's keys that name it.
  const { records } = await forgetTenant(d.store, tenantFor('slack', id), {
    surfaceKeys: () => slackKeysOf(d.store, id),
  });
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
