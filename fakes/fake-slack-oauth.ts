/**
 * The fake Slack's "Add to Slack": workspaces besides the fake's own, each with the bot token
 * `oauth.v2.access` issued it, and the channels that are its own. As Slack does, a token only works
 * in its own workspace: a call with one workspace's token on another's channel answers
 * `channel_not_found`. Codes are good once (`invalid_code` otherwise); token rotation issues an
 * expiring token and a refresh token, and `grant_type=refresh_token` trades the refresh token for a
 * new pair. Stricter than Slack, which honours the old token until it expires: a refreshed-away
 * token is refused here (`token_expired`), so a test sees which token every call used.
 *
 * An org-wide install (Enterprise Grid, `FakeOrgGrant`) is answered as Slack does: `team: null`,
 * `enterprise: {id, name}`, `is_enterprise_install: true`; its one token is the enterprise's and works
 * in every workspace of it (`addOrgTeams`), on their channels, and in none outside it.
 */
type Args = Record<string, unknown>;

export interface FakeInstallGrant {
  team: string;
  teamName: string;
  /** The installing user. */
  user: string;
  /** Token rotation on: the token expires after this many seconds. */
  expiresIn?: number;
}

/** An org-wide install: the enterprise's admin approves the app for the whole org. */
export interface FakeOrgGrant {
  enterprise: string;
  enterpriseName: string;
  user: string;
  expiresIn?: number;
}

export type FakeGrant = FakeInstallGrant | FakeOrgGrant;

/** Whose token a grant issues: the workspace's, or the enterprise's for an org-wide install. */
export function holderOf(grant: FakeGrant): string {
  return 'enterprise' in grant ? grant.enterprise : grant.team;
}

export const FAKE_CLIENT_ID = '1111.2222';
export const FAKE_CLIENT_SECRET = 'fake-client-secret';

export class FakeSlackWorkspaces {
  /** Each installed workspace's (or org-wide install's enterprise's) current bot token. */
  readonly botTokens = new Map<string, string>();
  /** `oauth.v2.access` calls with grant_type=refresh_token that were honoured. */
  refreshes = 0;
  private readonly codes = new Map<string, FakeGrant>();
  private readonly tokens = new Map<string, string>();
  private readonly expired = new Set<string>();
  private readonly refreshTokens = new Map<string, FakeGrant>();
  private readonly channelTeams = new Map<string, string>();
  /** Each workspace of an enterprise: its enterprise. */
  private readonly teamEnterprise = new Map<string, string>();
  private seq = 0;
  /** Enterprises that installed org-wide. */
  private readonly orgHolders = new Set<string>();

  /** A code Slack's authorize page would hand the browser after the user approved `grant`. */
  grant(code: string, grant: FakeGrant): void {
    this.codes.set(code, grant);
  }

  /** Channels of `team`: another workspace's token is refused there. */
  addChannels(team: string, ...channels: string[]): void {
    for (const c of channels) this.channelTeams.set(c, team);
  }

  /** Workspaces of `enterprise`: its org-wide token works there. */
  addOrgTeams(enterprise: string, ...teams: string[]): void {
    for (const t of teams) this.teamEnterprise.set(t, enterprise);
  }

  /** The workspace (or the enterprise, for an org-wide install) uninstalled the app: its tokens stop working. */
  revoke(team: string): void {
    for (const [token, t] of this.tokens) if (t === team) this.tokens.delete(token);
    this.botTokens.delete(team);
  }

  /** The workspace (or enterprise) a token is for, or an error code. */
  check(token: string): { team: string } | { error: string } {
    const team = this.tokens.get(token);
    if (team) return { team };
    return { error: this.expired.has(token) ? 'token_expired' : 'invalid_auth' };
  }

  /** A call on a channel of another workspace than the token's. */
  foreign(team: string, args: Args): boolean {
    const channel = args.channel ?? args.channel_id;
    const owner = typeof channel === 'string' ? this.channelTeams.get(channel) : undefined;
    return owner !== undefined && owner !== team && this.teamEnterprise.get(owner) !== team;
  }

  /** The workspace a call acts in: an org-wide token's is the workspace of the channel it names. */
  actingTeam(holder: string, args: Args): string {
    const channel = args.channel ?? args.channel_id;
    const owner = typeof channel === 'string' ? this.channelTeams.get(channel) : undefined;
    return owner !== undefined && this.teamEnterprise.get(owner) === holder ? owner : holder;
  }

  /** auth.test of an org-wide install's token (an enterprise's): names the enterprise, no workspace. */
  orgAuthTest(holder: string, bot: { userId: string; botId: string }): Args | undefined {
    if (!this.orgHolders.has(holder)) return undefined;
    return {
      ok: true,
      enterprise_id: holder,
      is_enterprise_install: true,
      user_id: bot.userId,
      bot_id: bot.botId,
      url: 'https://fake-org.enterprise.slack.test/',
    };
  }

  access(args: Args, bot: { userId: string; scope: string }): Args {
    if (args.client_id !== FAKE_CLIENT_ID) return { ok: false, error: 'invalid_client_id' };
    if (args.client_secret !== FAKE_CLIENT_SECRET) return { ok: false, error: 'bad_client_secret' };
    if (args.grant_type === 'refresh_token') return this.refresh(String(args.refresh_token ?? ''), bot);
    const grant = this.codes.get(String(args.code ?? ''));
    if (!grant) return { ok: false, error: 'invalid_code' };
    this.codes.delete(String(args.code));
    return { ok: true, app_id: 'A0APP', authed_user: { id: grant.user }, token_type: 'bot', ...this.issue(grant, bot) };
  }

  private refresh(refreshToken: string, bot: { userId: string; scope: string }): Args {
    const grant = this.refreshTokens.get(refreshToken);
    if (!grant) return { ok: false, error: 'invalid_refresh_token' };
    this.refreshTokens.delete(refreshToken);
    const old = this.botTokens.get(holderOf(grant));
    if (old) {
      this.tokens.delete(old);
      this.expired.add(old);
    }
    this.refreshes++;
    return { ok: true, app_id: 'A0APP', token_type: 'bot', ...this.issue(grant, bot) };
  }

  /** The token pair and who it is for: a workspace, or (org-wide) the enterprise with `team: null`. */
  private issue(grant: FakeGrant, bot: { userId: string; scope: string }): Args {
    const n = ++this.seq;
    const holder = holderOf(grant);
    const token = grant.expiresIn ? `xoxe.xoxb-${holder}-${n}` : `xoxb-${holder}-${n}`;
    this.tokens.set(token, holder);
    this.botTokens.set(holder, token);
    const out: Args = {
      access_token: token,
      scope: bot.scope,
      bot_user_id: bot.userId,
      ...('enterprise' in grant
        ? { team: null, enterprise: { id: grant.enterprise, name: grant.enterpriseName }, is_enterprise_install: true }
        : { team: { id: grant.team, name: grant.teamName }, enterprise: null, is_enterprise_install: false }),
    };
    if ('enterprise' in grant) this.orgHolders.add(holder);
    if (grant.expiresIn) {
      const refreshToken = `xoxe-1-${holder}-${n}`;
      this.refreshTokens.set(refreshToken, grant);
      out.refresh_token = refreshToken;
      out.expires_in = grant.expiresIn;
    }
    return out;
  }
}
