/**
 * Each workspace's bot token, read from the installation store, and token rotation: an installation
 * whose bot token expires (Slack's token rotation) is refreshed with `oauth.v2.access`
 * (grant_type=refresh_token) before it expires, by one instance at a time (a store lease), and every
 * instance then reads the new token from the store.
 *
 * The margin is wider than Bolt's own (its InstallProvider refreshes within 2 hours of expiry), so
 * Bolt's authorize, which reads through the same store, finds the token already fresh.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import type { StateStore } from '../../../state/store';
import { createWebClient, slackErrorCode } from '../web';
import { type AnyInstallation, type InstallationKey, type SlackInstallations, keyOf } from './installations';

/** Refresh this long before the token expires. */
export const REFRESH_MARGIN_MS = 3 * 60 * 60 * 1000;
/** How long one instance may hold a workspace's refresh. */
const REFRESH_LEASE_MS = 30_000;

const refreshSchema = z.object({
  access_token: z.string(),
  refresh_token: z.string(),
  expires_in: z.number(),
});

export interface WorkspaceTokensOptions {
  installations: SlackInstallations;
  store: StateStore;
  clientId: string;
  clientSecret: string;
  apiUrl?: string;
  instanceId: string;
  now: () => number;
  log: Logger;
}

/**
 * A workspace of an org-wide install: its enterprise (learned when Bolt's authorize resolved it), as
 * `{ enterprise }`. A plain string is a mark written before the org's workspaces were listed per
 * enterprise (below): still read, and written again in the new shape on the workspace's next request.
 */
const orgTeamKey = (team: string) => `slack:installation-team:${team}`;
/** The same mark listed under its enterprise, so the workspaces of an org-wide install that leaves are found. */
const ORG_TEAMS_PREFIX = 'slack:org-team:';
const enterpriseTeamsPrefix = (enterprise: string) => `${ORG_TEAMS_PREFIX}${encodeURIComponent(enterprise)}:`;
const enterpriseTeamKey = (enterprise: string, team: string) =>
  `${enterpriseTeamsPrefix(enterprise)}${encodeURIComponent(team)}`;

const orgTeamMark = z.union([z.object({ enterprise: z.string() }), z.string()]);

function markedEnterprise(value: unknown): { enterprise: string; listed: boolean } | undefined {
  const mark = orgTeamMark.safeParse(value);
  if (!mark.success) return undefined;
  return typeof mark.data === 'string'
    ? { enterprise: mark.data, listed: false }
    : { enterprise: mark.data.enterprise, listed: true };
}

/** The enterprise whose org-wide install serves `team`; undefined for a workspace's own install. */
export async function enterpriseOfTeam(store: StateStore, team: string): Promise<string | undefined> {
  return markedEnterprise(await store.get(orgTeamKey(team)))?.enterprise;
}

/**
 * The workspaces the org-wide install of `enterprise` has served (every one Bolt's authorize resolved
 * to it): listed under the enterprise; marks of the older shape, not listed there, are found by
 * reading every workspace's mark (a leaving is rare; so are they).
 */
export async function teamsOfEnterprise(store: StateStore, enterprise: string): Promise<string[]> {
  const prefix = enterpriseTeamsPrefix(enterprise);
  const teams = new Set((await store.keys(prefix)).map((k) => decodeURIComponent(k.slice(prefix.length))));
  for (const key of await store.keys(orgTeamKey(''))) {
    const mark = markedEnterprise(await store.get(key));
    if (mark && !mark.listed && mark.enterprise === enterprise) teams.add(key.slice(orgTeamKey('').length));
  }
  return [...teams];
}

/** Both marks of `team`, when they are still its enterprise's (a team's own uninstall deletes them with its keys). */
export async function forgetOrgTeam(store: StateStore, enterprise: string, team: string): Promise<void> {
  await store.delete(enterpriseTeamKey(enterprise, team));
  if ((await enterpriseOfTeam(store, team)) === enterprise) await store.delete(orgTeamKey(team));
}

export class WorkspaceTokens {
  constructor(private readonly opts: WorkspaceTokensOptions) {}

  /** The installation for a workspace (or its enterprise), its token refreshed first when due. */
  async installation(q: InstallationKey): Promise<AnyInstallation | undefined> {
    const inst = await this.opts.installations.load(q);
    if (inst?.isEnterpriseInstall && q.teamId && q.enterpriseId) await this.noteOrgTeam(q.teamId, q.enterpriseId);
    return inst && this.due(inst) ? this.refresh(inst) : inst;
  }

  /**
   * Outbound calls name only the workspace: which enterprise's install serves it is kept in the store.
   * Read there first (a read saves a write per request), not remembered in this process: a workspace
   * that leaves takes the mark with it, and a re-install must write it again.
   */
  private async noteOrgTeam(team: string, enterprise: string): Promise<void> {
    const mark = markedEnterprise(await this.opts.store.get(orgTeamKey(team)));
    if (mark?.listed && mark.enterprise === enterprise) return;
    // Listed under the enterprise first: a workspace's mark in the new shape is always found there.
    await this.opts.store.set(enterpriseTeamKey(enterprise, team), team);
    await this.opts.store.set(orgTeamKey(team), { enterprise });
  }

  /** The bot token of `team`; throws when the workspace has not installed the app. */
  async botToken(team: string): Promise<string> {
    const enterprise = await enterpriseOfTeam(this.opts.store, team);
    const inst =
      (await this.installation({ teamId: team, ...(enterprise ? { enterpriseId: enterprise } : {}) })) ??
      // An enterprise's own id (the org-wide installer's first-steps DM names no workspace of the org).
      (enterprise ? undefined : await this.installation({ enterpriseId: team, isEnterpriseInstall: true }));
    if (!inst?.bot?.token)
      throw new Error(`slack: workspace ${team} has no installation (install it at /slack/install)`);
    return inst.bot.token;
  }

  /** Refreshes every installation whose token is due (a periodic sweep, so idle workspaces stay fresh). */
  async refreshDue(): Promise<number> {
    let n = 0;
    for (const { key, expiresAt } of await this.opts.installations.expiring()) {
      if (expiresAt - this.opts.now() > REFRESH_MARGIN_MS) continue;
      const inst = await this.opts.installations.loadKey(key);
      if (inst && this.due(inst) && (await this.refresh(inst)) !== inst) n++;
    }
    return n;
  }

  private due(inst: AnyInstallation): boolean {
    const at = inst.bot?.expiresAt;
    return at !== undefined && inst.bot?.refreshToken !== undefined && at * 1000 - this.opts.now() <= REFRESH_MARGIN_MS;
  }

  /**
   * One instance refreshes (the lease); another finds the lease taken and goes on with the token it
   * read, which Slack still honours until it expires. The winner reads the record again first: an
   * instance that refreshed a moment ago has already written the new token.
   */
  private async refresh(stale: AnyInstallation): Promise<AnyInstallation> {
    const key = keyOf(stale);
    const lease = `slack:token-refresh:${key}`;
    const { store, instanceId, log } = this.opts;
    if (!(await store.acquireLease(lease, instanceId, REFRESH_LEASE_MS))) return stale;
    try {
      const inst = (await this.opts.installations.loadKey(key)) ?? stale;
      if (!this.due(inst) || !inst.bot?.refreshToken) return inst;
      const fresh = await this.exchange(inst.bot.refreshToken);
      const next: AnyInstallation = {
        ...inst,
        bot: {
          ...inst.bot,
          token: fresh.access_token,
          refreshToken: fresh.refresh_token,
          expiresAt: Math.floor(this.opts.now() / 1000) + fresh.expires_in,
        },
      };
      await this.opts.installations.save(next);
      log.info({ installation: key.slice(key.lastIndexOf(':') + 1) }, 'slack: bot token refreshed');
      return next;
    } catch (err) {
      // The old token still works until it expires: the next use tries again.
      log.warn({ code: slackErrorCode(err) ?? (err as Error).message }, 'slack: refreshing a bot token failed');
      return stale;
    } finally {
      await store.releaseLease(lease, instanceId).catch(() => undefined);
    }
  }

  private async exchange(refreshToken: string): Promise<z.infer<typeof refreshSchema>> {
    const client = createWebClient(undefined, this.opts.apiUrl, this.opts.log);
    const res = await client.oauth.v2.access({
      client_id: this.opts.clientId,
      client_secret: this.opts.clientSecret,
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
    return refreshSchema.parse(res);
  }
}
