/**
 * "Add to Slack" as a browser makes the trip, for the tests and the benches: GET /slack/install (a
 * redirect to Slack's authorize page, the state bound to the browser by a cookie), the fake Slack's
 * authorize (the user approves: a code is granted for the workspace), and Slack's redirect back to
 * GET /slack/oauth_redirect with the code, the state and the browser's cookie.
 */
import { randomBytes } from 'node:crypto';
import type { FakeSlack } from './fake-slack';
import { FAKE_CLIENT_ID, type FakeGrant, holderOf } from './fake-slack-oauth';
import { SlackDriver } from './slack-requests';

/** What the install trip needs: the address of the app's HTTP server (or a proxy in front) and the fake Slack. */
export type Installable = { app: { url?: string }; fake: FakeSlack };

export const STATE_COOKIE = 'slack-app-oauth-state';

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

/**
 * The whole "Add to Slack" trip for `grant`; resolves to the success page and a driver that signs the
 * workspace's requests with `signingSecret` to the same address (for an org-wide install, the
 * enterprise's own: `driver.inTeam(team)` for a workspace of it).
 */
export async function install(
  e: Installable,
  grant: FakeGrant,
  signingSecret: string,
): Promise<{ page: string; driver: SlackDriver }> {
  const { location, state, cookie } = await beginInstall(e);
  // Slack's authorize page: it knows the app by its client id, and sends the state back unchanged.
  if (location.searchParams.get('client_id') !== FAKE_CLIENT_ID || !state || !cookie) {
    throw new Error(
      `install of ${holderOf(grant)}: /slack/install did not redirect to the authorize page (${location})`,
    );
  }
  const holder = holderOf(grant);
  const code = `code-${holder}-${randomBytes(4).toString('hex')}`;
  e.fake.workspaces.grant(code, grant);
  const res = await oauthRedirect(e, code, state, cookie);
  const page = await res.text();
  if (res.status !== 200) throw new Error(`install of ${holder} failed: ${res.status} ${page}`);
  const enterprise = 'enterprise' in grant ? grant.enterprise : undefined;
  return { page, driver: new SlackDriver(`${e.app.url}/slack/events`, signingSecret, holder, enterprise) };
}
