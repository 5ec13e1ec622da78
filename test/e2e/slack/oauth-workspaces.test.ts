/** Many workspaces on one deployment: each answered with its own token, leaving, token rotation. */
import { waitFor } from '../../../fakes/slack-requests';
import { conversationIdOf } from '../../../src/core/conversations/model';
import { useStarted } from '../../support/server-setup';
import { install, startOAuthE2E } from '../../support/slack-oauth';
import { rootFor, waitForAnswer } from '../../support/slack-e2e';

const HOUR = 60 * 60 * 1000;

describe('Slack OAuth e2e: two workspaces', () => {
  const logLines: string[] = [];
  const e = useStarted(() => startOAuthE2E({ logLines }));

  test('an /ask in each workspace is answered with that workspace’s token; the other’s token is refused there', async () => {
    e.fake.workspaces.addChannels('T0AAA', 'C0AAA');
    e.fake.workspaces.addChannels('T0BBB', 'C0BBB');
    const a = await install(e, { team: 'T0AAA', teamName: 'Office A', user: 'U0USER1' });
    const b = await install(e, { team: 'T0BBB', teamName: 'Office B', user: 'U0USER2' });
    const tokenA = e.fake.workspaces.botTokens.get('T0AAA') as string;
    const tokenB = e.fake.workspaces.botTokens.get('T0BBB') as string;
    expect(tokenA).not.toBe(tokenB);
    // The fake holds each workspace to its own channels, as Slack does.
    const crossed = await fetch(`${e.fake.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokenB}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'C0AAA', text: 'x' }),
    });
    expect(await crossed.json()).toEqual({ ok: false, error: 'channel_not_found' });
    const from = e.fake.calls.length;

    await a.driver.command('/ask', 'Homes in Austin?', { user: 'U0USER1', channel: 'C0AAA' });
    await b.driver.command('/ask', 'Condos in Denver?', { user: 'U0USER2', channel: 'C0BBB' });
    const rootA = await waitFor(() => rootFor(e.fake, 'C0AAA', 'Homes in Austin?'), 'the root in A');
    const rootB = await waitFor(() => rootFor(e.fake, 'C0BBB', 'Condos in Denver?'), 'the root in B');
    await waitForAnswer(e, 'C0AAA', rootA.ts, 'Homes in Austin?');
    await waitForAnswer(e, 'C0BBB', rootB.ts, 'Condos in Denver?');
    for (const [channel, team] of [
      ['C0AAA', 'T0AAA'],
      ['C0BBB', 'T0BBB'],
    ]) {
      const calls = e.fake.calls.slice(from).filter((c) => c.args.channel === channel);
      expect(calls.length).toBeGreaterThan(1);
      for (const c of calls) {
        expect(c.team).toBe(team);
        expect(c.response.ok).toBe(true);
      }
    }
    // Each asker's display name is looked up in the workspace the request came from (its team named
    // by the request, no per-process guess), with that workspace's token: the conversation keeps the
    // name users.info gave, not the slash command's user_name.
    for (const [user, team, channel, ts] of [
      ['U0USER1', 'T0AAA', 'C0AAA', rootA.ts],
      ['U0USER2', 'T0BBB', 'C0BBB', rootB.ts],
    ]) {
      const lookups = e.fake.calls.slice(from).filter((c) => c.method === 'users.info' && c.args.user === user);
      expect(lookups.length).toBeGreaterThan(0);
      for (const c of lookups) {
        expect(c.team).toBe(team);
        expect(c.response.ok).toBe(true);
      }
      const conv = conversationIdOf({ surface: 'slack', workspace: team, channel, thread: ts });
      const record = await e.app.store.get<{ asker?: { name: string } }>(`t:slack:${team}:conv:${conv}`);
      const given = (lookups[0]!.response.user as { name: string }).name;
      expect(given).not.toBe(user.toLowerCase());
      expect(record?.asker?.name).toBe(given);
    }
  });

  test('app_uninstalled deletes the installation and the workspace’s records, logged once; a re-install starts clean', async () => {
    e.fake.workspaces.addChannels('T0GONE', 'C0GONE');
    const gone = await install(e, { team: 'T0GONE', teamName: 'Leaving', user: 'U0USER1' });
    await gone.driver.command('/ask', 'Lofts in Boston?', { user: 'U0USER1', channel: 'C0GONE' });
    const root = await waitFor(() => rootFor(e.fake, 'C0GONE', 'Lofts in Boston?'), 'the root');
    await waitForAnswer(e, 'C0GONE', root.ts, 'Lofts in Boston?');
    const named = async () => (await e.app.store.keys('')).filter((k) => k.includes('T0GONE'));
    expect((await named()).length).toBeGreaterThan(1);
    expect(
      (
        await e.app.store.keys(
          `t:slack:T0GONE:conv:${conversationIdOf({ surface: 'slack', workspace: 'T0GONE', channel: 'C0GONE', thread: root.ts })}`,
        )
      ).length,
    ).toBeGreaterThan(1);
    const kept = (await e.app.store.keys('')).filter((k) => k.includes('T0AAA'));

    e.fake.workspaces.revoke('T0GONE');
    expect((await gone.driver.event({ type: 'app_uninstalled' })).status).toBe(200);
    await waitFor(async () => ((await named()).length === 0 ? true : undefined), 'the workspace’s records deleted');
    // The conversation's records (keyed by a hash of its place) went with it.
    const conv = conversationIdOf({ surface: 'slack', workspace: 'T0GONE', channel: 'C0GONE', thread: root.ts });
    expect((await e.app.store.keys(`t:slack:T0GONE:conv:${conv}`)).length).toBe(0);
    expect((await e.app.store.keys(`conv:${conv}`)).length).toBe(0);
    for (const key of await e.app.store.keys('')) {
      expect(JSON.stringify(await e.app.store.get(key))).not.toContain('"T0GONE"');
    }
    expect(await e.app.store.get('slack:installation:team:T0GONE')).toBeUndefined();
    // Another workspace keeps its records.
    expect((await e.app.store.keys('')).filter((k) => k.includes('T0AAA'))).toEqual(kept);
    // tokens_revoked after it finds nothing left to delete.
    await gone.driver.event({ type: 'tokens_revoked', tokens: { bot: ['UBOT'] } });
    await waitFor(
      () => logLines.find((l) => l.includes('tenant left: slack T0GONE: already gone')),
      'tokens_revoked handled',
    );
    const left = logLines.filter((l) => l.includes('"tenant left: slack T0GONE: stopped'));
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/stopped 0 answers, deleted \d+ records/);

    const again = await install(e, { team: 'T0GONE', teamName: 'Leaving', user: 'U0USER1' });
    expect((await named()).sort()).toEqual(['slack:installation:team:T0GONE']);
    await again.driver.command('/ask', 'Lofts in Boston?', { user: 'U0USER1', channel: 'C0GONE' });
    await waitFor(
      () => (e.fake.channelMessages('C0GONE').length === 2 ? true : undefined),
      'a new root after re-install',
    );
  });
});

describe('Slack OAuth e2e: token rotation', () => {
  let now = Date.now();
  const e = useStarted(() => startOAuthE2E({ now: () => now }));

  test('a rotating token is refreshed before it expires and the answers use the new one', async () => {
    e.fake.workspaces.addChannels('T0ROT', 'C0ROT');
    const r = await install(e, { team: 'T0ROT', teamName: 'Rotating', user: 'U0USER1', expiresIn: 12 * 60 * 60 });
    const first = e.fake.workspaces.botTokens.get('T0ROT');
    // Ten hours on: two hours before the token expires, inside the refresh margin.
    now += 10 * HOUR;
    await r.driver.command('/ask', 'Cabins in Maine?', { user: 'U0USER1', channel: 'C0ROT' });
    const root = await waitFor(() => rootFor(e.fake, 'C0ROT', 'Cabins in Maine?'), 'the root');
    await waitForAnswer(e, 'C0ROT', root.ts, 'Cabins in Maine?');
    expect(e.fake.workspaces.refreshes).toBe(1);
    expect(e.fake.workspaces.botTokens.get('T0ROT')).not.toBe(first);
    // The fake refuses the refreshed-away token: every call in the channel went out with the new one.
    for (const c of e.fake.calls.filter((x) => x.args.channel === 'C0ROT')) expect(c.response.ok).toBe(true);
  });
});
