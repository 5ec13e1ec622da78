/** "Add to Slack": the install link, Slack's redirect back, and what is (or is not) stored. */
import { existsSync, readFileSync } from 'node:fs';
import { waitFor } from '../../../fakes/slack-requests';
import { BOT_SCOPES } from '../../../src/surfaces/slack/oauth/scopes';
import { useStarted } from '../../support/server-setup';
import { rootFor, waitForAnswer } from '../../support/slack-e2e';
import { beginInstall, oauthRedirect, STATE_COOKIE } from '../../../fakes/slack-install';
import { install, startOAuthE2E } from '../../support/slack-oauth';

const INSTALLATIONS = 'slack:installation:';

describe('Slack OAuth e2e: installing', () => {
  const e = useStarted(() => startOAuthE2E());

  test('GET /slack/install: 302 to Slack’s authorize page with client_id, the manifest’s bot scopes and a state bound by a cookie', async () => {
    const { res, location, state, cookie } = await beginInstall(e);
    expect(res.status).toBe(302);
    expect(`${location.origin}${location.pathname}`).toBe('https://slack.com/oauth/v2/authorize');
    expect(location.searchParams.get('client_id')).toBe('1111.2222');
    expect(location.searchParams.get('scope')?.split(',')).toEqual([...BOT_SCOPES]);
    expect(state).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(cookie).toBe(`${STATE_COOKIE}=${state}`);
    const setCookie = res.headers.getSetCookie().join('\n');
    expect(setCookie).toMatch(/HttpOnly/);
  });

  test('the redirect with a good state and cookie stores the installation, names the workspace and DMs the installer', async () => {
    const { page } = await install(e, { team: 'T0ACME', teamName: 'Acme Realty', user: 'U0OWNER' });
    expect(page).toContain('<b>Acme Realty</b>');
    expect(page).toContain('/chatbot connect');
    expect(page).toContain('/help');
    expect(await e.app.store.keys(INSTALLATIONS)).toContain(`${INSTALLATIONS}team:T0ACME`);
    const dm = await waitFor(
      () => e.fake.callsOf('chat.postMessage').find((c) => c.args.channel === 'U0OWNER' && c.status === 200),
      'the installer DM',
    );
    expect(dm.team).toBe('T0ACME');
    const text = String(dm.args.text);
    for (const step of ['/chatbot connect', 'handoff channel', '/help']) expect(text).toContain(step);
  });

  test('a forged state, a replayed state, a missing cookie and a refused code answer a page that says so, and store nothing', async () => {
    const before = await e.app.store.keys(INSTALLATIONS);
    e.fake.workspaces.grant('code-forged', { team: 'T0BAD1', teamName: 'Bad', user: 'U0X' });
    const forged = await oauthRedirect(e, 'code-forged', 'abc.def', `${STATE_COOKIE}=abc.def`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toMatch(/expired, was already used/);

    e.fake.workspaces.grant('code-nocookie', { team: 'T0BAD2', teamName: 'Bad', user: 'U0X' });
    const noCookie = await oauthRedirect(e, 'code-nocookie', (await beginInstall(e)).state);
    expect(noCookie.status).toBe(400);
    expect(await noCookie.text()).toMatch(/Nothing was installed/);

    e.fake.workspaces.grant('code-once', { team: 'T0ONCE', teamName: 'Once', user: 'U0X' });
    const first = await beginInstall(e);
    expect((await oauthRedirect(e, 'code-once', first.state, first.cookie)).status).toBe(200);
    e.fake.workspaces.grant('code-replay', { team: 'T0BAD3', teamName: 'Bad', user: 'U0X' });
    const replay = await oauthRedirect(e, 'code-replay', first.state, first.cookie);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toMatch(/already used/);

    const refused = await beginInstall(e);
    const res = await oauthRedirect(e, 'code-never-granted', refused.state, refused.cookie);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/Slack refused the installation \(invalid_code\)/);

    const after = await e.app.store.keys(INSTALLATIONS);
    expect(after.sort()).toEqual([...before, `${INSTALLATIONS}team:T0ONCE`].sort());
  });

  test('tokens are encrypted at rest: the raw SQLite file holds no bot token', async () => {
    await install(e, { team: 'T0SEAL', teamName: 'Sealed', user: 'U0S' });
    const token = e.fake.workspaces.botTokens.get('T0SEAL') as string;
    expect(token).toMatch(/^xoxb-/);
    // The file and its write-ahead log: what a copy of the disk would show.
    const raw = Buffer.concat([e.dbPath, `${e.dbPath}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f)));
    expect(raw.includes(Buffer.from(`${INSTALLATIONS}team:T0SEAL`))).toBe(true);
    for (const t of e.fake.workspaces.botTokens.values()) expect(raw.includes(Buffer.from(t))).toBe(false);
    expect(raw.includes(Buffer.from('xoxb-'))).toBe(false);
  });
});

describe('Slack OAuth e2e: logs', () => {
  const logLines: string[] = [];
  const e = useStarted(() => startOAuthE2E({ logLines }));

  test('no log line (trace level) carries a workspace’s bot or refresh token, or the client secret', async () => {
    const r = await install(e, { team: 'T0LOGS', teamName: 'Logs', user: 'U0USER1', expiresIn: 43_200 });
    await r.driver.command('/ask', 'Homes in Reno?', { user: 'U0USER1', channel: 'C0LOGS' });
    await waitFor(() => logLines.find((l) => l.includes('app installed in a workspace')), 'the install logged');
    const root = await waitFor(() => rootFor(e.fake, 'C0LOGS', 'Homes in Reno?'), 'the root');
    await waitForAnswer(e, 'C0LOGS', root.ts, 'Homes in Reno?');
    expect(logLines.length).toBeGreaterThan(10);
    const all = logLines.join('\n');
    expect(all).not.toMatch(/xox[be][.-]/);
    expect(all).not.toContain('fake-client-secret');
  });
});
