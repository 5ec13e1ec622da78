/**
 * The fake Slack's "Add to Slack": workspaces besides the fake's own, each with the bot token
 * `oauth.v2.access` issued it, and the channels that are its own. As Slack does, a token only works
 * in its own workspace: a call with one workspace's token on another's channel answers
 * `channel_not_found`. Codes are good once (`invalid_code` otherwise); token rotation issues an
 * expiring token and a refresh token, and `grant_type=refresh_token` trades the refresh token for a
 * new pair. Stricter than Slack, which honours the old token until it expires: a refreshed-away
 * token is refused here (`token_expired`), so a test sees which token every call used.
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

export const FAKE_CLIENT_ID = '1111.2222';
export const FAKE_CLIENT_SECRET = 'fake-client-secret';

export class FakeSlackWorkspaces {
  /** Each installed workspace's current bot token. */
  readonly botTokens = new Map<string, string>();
  /** `oauth.v2.access` calls with grant_type=refresh_token that were honoured. */
  refreshes = 0;
  private readonly codes = new Map<string, FakeInstallGrant>();
  private readonly tokens = new Map<string, string>();
  private readonly expired = new Set<string>();
  private readonly refreshTokens = new Map<string, FakeInstallGrant>();
  private readonly channelTeams = new Map<string, string>();
  private seq = 0;

  /** A code Slack's authorize page would hand the browser after the user approved `grant`. */
  grant(code: string, grant: FakeInstallGrant): void {
    this.codes.set(code, grant);
  }

  /** Channels of `team`: another workspace's token is refused there. */
  addChannels(team: string, ...channels: string[]): void {
    for (const c of channels) this.channelTeams.set(c, team);
  }

  /** The workspace uninstalled the app: its tokens stop working. */
  revoke(team: string): void {
    for (const [token, t] of this.tokens) if (t === team) this.tokens.delete(token);
    this.botTokens.delete(team);
  }

  /** The workspace a token is for, or an error code. */
  check(token: string): { team: string } | { error: string } {
    const team = this.tokens.get(token);
    if (team) return { team };
    return { error: this.expired.has(token) ? 'token_expired' : 'invalid_auth' };
  }

  /** A call on a channel of another workspace than the token's. */
  foreign(team: string, args: Args): boolean {
    const channel = args.channel ?? args.channel_id;
    const owner = typeof channel === 'string' ? this.channelTeams.get(channel) : undefined;
    return owner !== undefined && owner !== team;
  }

  access(args: Args, bot: { userId: string; scope: string }): Args {
    if (args.client_id !== FAKE_CLIENT_ID) return { ok: false, error: 'invalid_client_id' };
    if (args.client_secret !== FAKE_CLIENT_SECRET) return { ok: false, error: 'bad_client_secret' };
    if (args.grant_type === 'refresh_token') return this.refresh(String(args.refresh_token ?? ''), bot);
    const grant = this.codes.get(String(args.code ?? ''));
    if (!grant) return { ok: false, error: 'invalid_code' };
    this.codes.delete(String(args.code));
    return {
      ok: true,
      app_id: 'A0APP',
      authed_user: { id: grant.user },
      token_type: 'bot',
      enterprise: null,
      is_enterprise_install: false,
      ...this.issue(grant, bot),
    };
  }

  private refresh(refreshToken: string, bot: { userId: string; scope: string }): Args {
    const grant = this.refreshTokens.get(refreshToken);
    if (!grant) return { ok: false, error: 'invalid_refresh_token' };
    this.refreshTokens.delete(refreshToken);
    const old = this.botTokens.get(grant.team);
    if (old) {
      this.tokens.delete(old);
      this.expired.add(old);
    }
    this.refreshes++;
    return {
      ok: true,
      app_id: 'A0APP',
      token_type: 'bot',
      enterprise: null,
      is_enterprise_install: false,
      ...this.issue(grant, bot),
    };
  }

  private issue(grant: FakeInstallGrant, bot: { userId: string; scope: string }): Args {
    const n = ++this.seq;
    const token = grant.expiresIn ? `xoxe.xoxb-${grant.team}-${n}` : `xoxb-${grant.team}-${n}`;
    this.tokens.set(token, grant.team);
    this.botTokens.set(grant.team, token);
    const out: Args = {
      access_token: token,
      scope: bot.scope,
      bot_user_id: bot.userId,
      team: { id: grant.team, name: grant.teamName },
    };
    if (grant.expiresIn) {
      const refreshToken = `xoxe-1-${grant.team}-${n}`;
      this.refreshTokens.set(refreshToken, grant);
      out.refresh_token = refreshToken;
      out.expires_in = grant.expiresIn;
    }
    return out;
  }
}
