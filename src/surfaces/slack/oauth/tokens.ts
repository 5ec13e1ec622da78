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
import { scoped, scopedPrefix, type ScopedKey, tenantFor, tenantStore } from '../../../state/tenant-store';
import { reportUnreadable, UnreadableRecord } from '../../../state/unreadable';
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
 * `{ enterprise }`, kept in the workspace's own part of the store; and the same workspace listed in
 * the enterprise's part, so the workspaces of an org-wide install that leaves are found. Before marks
 * lived in the tenants' parts they were global (`slack:installation-team:<team>`, a plain string in
 * the oldest shape, and `slack:org-team:<enterprise>:<team>`): still read, and moved on the
 * workspace's next request.
 */
const ORG_MARK = scoped('slack', 'org');
const ORG_TEAMS = scopedPrefix('slack', 'org-team');
const orgTeamKey = (team: string): ScopedKey => scoped('slack', 'org-team', team);
const slackView = (store: StateStore, id: string) => tenantStore(store, tenantFor('slack', id));
const legacyOrgTeamKey = (team: string) => `slack:installation-team:${team}`;
const LEGACY_ORG_TEAMS_PREFIX = 'slack:org-team:';
const legacyEnterpriseTeamsPrefix = (enterprise: string) =>
  `${LEGACY_ORG_TEAMS_PREFIX}${encodeURIComponent(enterprise)}:`;

const orgTeamMark = z.union([z.object({ enterprise: z.string() }), z.string()]);

function markedEnterprise(value: unknown): { enterprise: string; listed: boolean } | undefined {
  const mark = orgTeamMark.safeParse(value);
  if (!mark.success) return undefined;
  return typeof mark.data === 'string'
    ? { enterprise: mark.data, listed: false }
    : { enterprise: mark.data.enterprise, listed: true };
}

/** The mark in the workspace's part; else the global one of before (not yet moved). */
async function orgMarkOf(store: StateStore, team: string): Promise<{ enterprise: string; moved: boolean } | undefined> {
  if (!team) return undefined;
  const own = markedEnterprise(await slackView(store, team).get(ORG_MARK));
  if (own) return { enterprise: own.enterprise, moved: true };
  const legacy = markedEnterprise(await store.get(legacyOrgTeamKey(team)));
  return legacy && { enterprise: legacy.enterprise, moved: false };
}

/** The enterprise whose org-wide install serves `team`; undefined for a workspace's own install. */
export async function enterpriseOfTeam(store: StateStore, team: string): Promise<string | undefined> {
  return (await orgMarkOf(store, team))?.enterprise;
}

/**
 * The workspaces the org-wide install of `enterprise` has served (every one Bolt's authorize resolved
 * to it): listed in the enterprise's part; those listed the old way are found too (the global list,
 * and the oldest marks by reading every old mark: a leaving is rare, and so are they).
 */
export async function teamsOfEnterprise(store: StateStore, enterprise: string): Promise<string[]> {
  const teams = new Set(
    (await slackView(store, enterprise).keys(ORG_TEAMS)).map((k) => decodeURIComponent(k.slice(ORG_TEAMS.length))),
  );
  const listed = legacyEnterpriseTeamsPrefix(enterprise);
  for (const key of await store.keys(listed)) teams.add(decodeURIComponent(key.slice(listed.length)));
  for (const key of await store.keys(legacyOrgTeamKey(''))) {
    const mark = markedEnterprise(await store.get(key));
    if (mark && !mark.listed && mark.enterprise === enterprise) teams.add(key.slice(legacyOrgTeamKey('').length));
  }
  return [...teams];
}

/** Both marks of `team`, when they are still its enterprise's (a team's own uninstall deletes them with its part). */
export async function forgetOrgTeam(store: StateStore, enterprise: string, team: string): Promise<void> {
  await slackView(store, enterprise).delete(orgTeamKey(team));
  await store.delete(`${legacyEnterpriseTeamsPrefix(enterprise)}${encodeURIComponent(team)}`);
  if ((await enterpriseOfTeam(store, team)) !== enterprise) return;
  await slackView(store, team).delete(ORG_MARK);
  await store.delete(legacyOrgTeamKey(team));
}

export class WorkspaceTokens {
  /** Whether this process's refresh sweep ran once (the first walks every installation). */
  private swept = false;

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
    const { store } = this.opts;
    const mark = await orgMarkOf(store, team);
    if (mark?.moved && mark.enterprise === enterprise) return;
    // Listed in the enterprise's part first: a workspace's mark in its own part is always found there.
    await slackView(store, enterprise).set(orgTeamKey(team), team);
    await slackView(store, team).set(ORG_MARK, { enterprise });
    // The global marks of before go once moved.
    await store.delete(legacyOrgTeamKey(team));
    await store.delete(`${legacyEnterpriseTeamsPrefix(enterprise)}${encodeURIComponent(team)}`);
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
    // The first sweep of the process also walks every installation once (those written before the index).
    const everyRecord = !this.swept;
    this.swept = true;
    const { installations } = this.opts;
    for (const { key, expiresAt } of await installations.expiring(this.opts.now() + REFRESH_MARGIN_MS, everyRecord)) {
      if (expiresAt - this.opts.now() > REFRESH_MARGIN_MS) continue;
      try {
        const inst = await installations.loadKey(key);
        if (!inst) await installations.forgetExpiry(key);
        else if (this.due(inst) && (await this.refresh(inst)) !== inst) n++;
      } catch (err) {
        // One record no key opens is logged once and skipped: the others are still refreshed.
        if (!(err instanceof UnreadableRecord)) throw err;
        reportUnreadable(this.opts.log, err);
      }
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
  private async refresh(stale: AnyInstallation): Promise<AnyInstallation | undefined> {
    const key = keyOf(stale);
    const lease = `slack:token-refresh:${key}`;
    const { store, instanceId, log } = this.opts;
    if (!(await store.acquireLease(lease, instanceId, REFRESH_LEASE_MS))) return stale;
    try {
      const read = await this.opts.installations.read(key);
      // Uninstalled meanwhile: nothing to refresh, and nothing is written back.
      if (!read) return undefined;
      const inst = read.inst;
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
      // Written only over the record it started from: an uninstall or a re-install meanwhile is newer.
      if (!(await this.opts.installations.replace(read, next))) return this.opts.installations.loadKey(key);
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
