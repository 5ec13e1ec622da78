/**
 * A workspace leaves: `app_uninstalled`, or `tokens_revoked` naming the bot's token. Its installation
 * is deleted, its cached client and what the port learnt of it in this process (forgetCached) are
 * dropped; then core's `leave` stops its answers in flight, on every instance (no further Web API call
 * for them, none marked interrupted), and deletes every record of it (its part of the store, its
 * conversations, transcripts, tickets, votes; its users' and channels' cached lookups, which live in
 * its part of the store) with the Slack keys that name it.
 * An org-wide install (Enterprise Grid) is one installation, keyed by the enterprise, serving many
 * workspaces whose places, answers and records carry the workspace's own id: every workspace it served
 * (tokens.ts's marks, listed per enterprise) leaves with it, unless it has its own installation now.
 * A re-install starts clean. Logged once (by core, one line for an org and its workspaces): the second
 * of the two events finds nothing left.
 * Bolt delivers both events without authorize (the installation may be gone already).
 */
import type { App } from '@slack/bolt';
import type { Logger } from 'pino';
import type { BridgeCore } from '../../../core/surface';
import type { StateStore } from '../../../state/store';
import type { TeamClients } from '../clients';
import { legacySlackKeysOf } from '../records';
import { INSTALLATION_PREFIX, installationKey, type SlackInstallations } from './installations';
import { forgetOrgTeam, teamsOfEnterprise } from './tokens';

export interface LeavingDeps {
  app: App;
  installations: SlackInstallations;
  store: StateStore;
  clients: TeamClients;
  /** Drops what this process learnt of the workspace (SlackPort.forgetWorkspace). */
  forgetCached: (team: string) => void;
  log: Logger;
  core: () => BridgeCore | undefined;
}

/**
 * The Slack surface's own records of the workspace live in its part of the store (../records.ts) and
 * go with it; what is still found here are the global keys of before that name it (not yet moved since
 * an upgrade), the installation aside (removed above) and the one-time OAuth states (no workspace yet).
 */
async function slackKeysOf(store: StateStore, id: string): Promise<string[]> {
  return legacySlackKeysOf(store, id, (k) => k.startsWith(INSTALLATION_PREFIX) || k.startsWith('slack:oauth-state'));
}

/**
 * The workspaces an org-wide install served, which leave with it. A workspace that has its own
 * installation now is served by that, not by the org: it stays; its marks of the org go, and so does
 * its client here, which may still hold the org's token (other instances read the token again within
 * clients.ts's TOKEN_READ_MS).
 */
async function orgTeamsLeaving(d: Pick<LeavingDeps, 'store' | 'clients'>, enterprise: string): Promise<string[]> {
  const leaving: string[] = [];
  for (const team of await teamsOfEnterprise(d.store, enterprise)) {
    if ((await d.store.get(installationKey({ teamId: team }))) === undefined) {
      leaving.push(team);
      continue;
    }
    await forgetOrgTeam(d.store, enterprise, team);
    d.clients.forget(team);
  }
  return leaving;
}

export async function forgetWorkspace(
  d: Omit<LeavingDeps, 'app'>,
  who: { teamId?: string; enterpriseId?: string; isEnterpriseInstall?: boolean },
  why: string,
): Promise<void> {
  const orgWide = who.isEnterpriseInstall === true || !who.teamId;
  const id = orgWide ? who.enterpriseId : who.teamId;
  if (!id) return;
  const installed = await d.installations.remove(
    orgWide ? { enterpriseId: id, isEnterpriseInstall: true } : { teamId: id },
  );
  // An org-wide install's workspaces: their conversations, answers and records carry the team's id.
  const teams = orgWide ? await orgTeamsLeaving(d, id) : [];
  for (const team of [id, ...teams]) {
    d.clients.forget(team);
    d.forgetCached(team);
  }
  const core = d.core();
  if (!core?.leave) throw new Error('slack: a workspace left before the bridge was attached');
  // Its answers stop; core's records of the tenant (its own part of the store, conversations,
  // tickets, votes...) and the Slack surface's keys that name it are deleted; the org's workspaces
  // (and their marks, keys that name them) likewise.
  await core.leave({
    surface: 'slack',
    workspace: id,
    why,
    known: installed,
    // Only an older version's keys are global (slackKeysOf): looked for while they may remain.
    surfaceKeys: (_places, unindexed) => (unindexed ? slackKeysOf(d.store, id) : []),
    served: teams.map((team) => ({
      workspace: team,
      surfaceKeys: (_places: unknown, unindexed: boolean) => (unindexed ? slackKeysOf(d.store, team) : []),
    })),
  });
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
