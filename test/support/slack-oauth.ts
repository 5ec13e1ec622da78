/**
 * "Add to Slack" in end-to-end tests: the app in OAuth mode on the fake Slack (SLACK_BOT_TOKEN unset,
 * the OAuth variables and a fresh STATE_ENCRYPTION_KEY set), and a browser's trip through
 * /slack/install and /slack/oauth_redirect.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET, type FakeInstallGrant } from '../../fakes/fake-slack-oauth';
import { SlackDriver } from '../../fakes/slack-requests';
import { tempDir } from './app-env';
import type { FakeSlack } from '../../fakes/fake-slack';
import { SIGNING_SECRET, startSlackE2E, type SlackE2E } from './slack-e2e';

/** What the install trip needs: the app's HTTP server and the fake Slack. */
type Installable = { app: { url?: string }; fake: FakeSlack };

export const STATE_COOKIE = 'slack-app-oauth-state';

/** The OAuth variables (SLACK_BOT_TOKEN blanked) and a fresh STATE_ENCRYPTION_KEY. */
export function oauthEnv(key = randomBytes(32).toString('base64')): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: '',
    SLACK_CLIENT_ID: FAKE_CLIENT_ID,
    SLACK_CLIENT_SECRET: FAKE_CLIENT_SECRET,
    SLACK_STATE_SECRET: 'e2e-state-secret',
    STATE_ENCRYPTION_KEY: key,
  };
}

export interface OAuthE2E extends SlackE2E {
  /** The SQLite file of the state store (read raw by the encryption-at-rest test). */
  dbPath: string;
  key: string;
}

export async function startOAuthE2E(
  opts: { now?: () => number; env?: Record<string, string>; logLines?: string[] } = {},
): Promise<OAuthE2E> {
  const dir = tempDir('slack-oauth-');
  const dbPath = join(dir.dir, 'state.db');
  const key = randomBytes(32).toString('base64');
  const e = await startSlackE2E({
    env: {
      ...oauthEnv(key),
      STATE_URL: `sqlite:${dbPath}`,
      ...opts.env,
    },
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.logLines ? { logLines: opts.logLines } : {}),
  });
  return {
    ...e,
    dbPath,
    key,
    async close() {
      await e.close();
      dir.remove();
    },
  };
}

/** GET /slack/install as a browser: the redirect, and the state with its cookie. */
export async function beginInstall(
  e: Installable,
): Promise<{ res: Response; location: URL; state: string; cookie: string }> {
  const res = await fetch(`${e.app.url}/slack/install`, { redirect: 'manual' });
  const location = new URL(res.headers.get('location') ?? 'http://missing/');
  const state = location.searchParams.get('state') ?? '';
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith(`${STATE_COOKIE}=`)) ?? '';
  return { res, location, state, cookie: setCookie.split(';')[0] ?? '' };
}

/** Slack's redirect back to the app, with the browser's cookie (or none). */
export function oauthRedirect(e: Installable, code: string, state: string, cookie?: string): Promise<Response> {
  const url = `${e.app.url}/slack/oauth_redirect?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`;
  return fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
}

/** The whole "Add to Slack" trip for `grant`; resolves to the success page and a driver for the workspace. */
export async function install(e: Installable, grant: FakeInstallGrant): Promise<{ page: string; driver: SlackDriver }> {
  const code = `code-${grant.team}-${randomBytes(4).toString('hex')}`;
  e.fake.workspaces.grant(code, grant);
  const { state, cookie } = await beginInstall(e);
  const res = await oauthRedirect(e, code, state, cookie);
  const page = await res.text();
  if (res.status !== 200) throw new Error(`install of ${grant.team} failed: ${res.status} ${page}`);
  return { page, driver: new SlackDriver(`${e.app.url}/slack/events`, SIGNING_SECRET, grant.team) };
}
