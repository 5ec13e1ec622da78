/**
 * An org-wide install (Enterprise Grid) leaves while answers stream in two workspaces of its
 * enterprise. The installation is the enterprise's, but the conversations, answers in flight and
 * records carry each workspace's own id: `app_uninstalled` for the enterprise stops both answers at
 * once and deletes both workspaces' records (read from the raw store), logged in one line, while a
 * workspace installed on its own answers to the last word and keeps its records. A re-install of the
 * org answers again. The service is the real local one behind a proxy that holds each answer mid-way.
 */
import { sameAnswer, shown } from '../../../fakes/slack-blocks';
import { waitFor } from '../../../fakes/slack-requests';
import { convKeys, conversationIdOf } from '../../../src/core/conversations/model';
import { tenantFor, tenantPrefix } from '../../../src/state/tenant-store';
import { heldAnswer, onChannel } from '../../support/held-answer';
import { useStarted } from '../../support/server-setup';
import { answerMessages, rootFor, waitForAnswer } from '../../support/slack-e2e';
import { install, startOAuthE2E } from '../../support/slack-oauth';
import { behindServiceProxy } from '../faults/service-proxy';

/** The raw store key of a conversation's record: in its workspace's part of the store. */
function convKeyOf(team: string, channel: string, thread: string): string {
  const id = conversationIdOf({ surface: 'slack', workspace: team, channel, thread });
  return `${tenantPrefix(tenantFor('slack', team))}${convKeys.conversation(id)}`;
}

const ORG = 'E0ORG';
const TEAM_A = 'T0ORGA';
const TEAM_B = 'T0ORGB';
const SOLO = 'T0SOLO';
/** A workspace of the org that asked through the org's install, then installed the app on its own. */
const OWN = 'T0ORGOWN';
const ORG_GRANT = { enterprise: ORG, enterpriseName: 'Brokerage Org', user: 'U0ADMIN' };

describe('Slack OAuth e2e: an org-wide install leaves while its workspaces’ answers stream', () => {
  const logLines: string[] = [];
  const s = useStarted(() => behindServiceProxy((url) => startOAuthE2E({ logLines, env: { CHATBOT_API_URL: url } })));

  /** Keys of the raw store that name one of `ids`, and keys whose value names one. */
  async function naming(...ids: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const key of await s.e.app.store.keys('')) {
      const value = JSON.stringify(await s.e.app.store.get(key));
      if (ids.some((id) => key.includes(id) || value.includes(`"${id}"`))) out.push(key);
    }
    return out;
  }

  test('app_uninstalled for the enterprise stops and deletes every workspace it served; a workspace of its own stays; a re-install answers', async () => {
    const { e, proxy } = s;
    e.fake.workspaces.addOrgTeams(ORG, TEAM_A, TEAM_B, OWN);
    e.fake.workspaces.addChannels(OWN, 'C0OWN');
    e.fake.workspaces.addChannels(TEAM_A, 'C0ORGA');
    e.fake.workspaces.addChannels(TEAM_B, 'C0ORGB');
    e.fake.workspaces.addChannels(SOLO, 'C0SOLO');
    const org = await install(e, ORG_GRANT);
    const solo = await install(e, { team: SOLO, teamName: 'Solo office', user: 'U0USER3' });
    // The org's installer gets the first steps as the org's bot (the installation names no workspace).
    const welcomed = e.fake.calls.find((c) => c.method === 'chat.postMessage' && c.args.channel === 'U0ADMIN');
    expect(welcomed?.response.ok).toBe(true);
    const inA = org.driver.inTeam(TEAM_A);
    const inB = org.driver.inTeam(TEAM_B);
    const a = heldAnswer(['Here are three lofts in Boston. ', 'The first is on Beacon Street. ', 'All done.'], 9101);
    const b = heldAnswer(['Denver has two condos for sale. ', 'One is downtown, ', 'one in Highlands.'], 9102);
    const c = heldAnswer(['Austin has four ranches. ', 'Two have pools, ', 'two have barns.'], 9103);
    proxy.scriptAsk(a.handler, b.handler, c.handler);

    // Three answers in flight: two in the org's workspaces, one in the workspace installed on its own.
    const asks = [
      { d: inA, user: 'U0USER1', channel: 'C0ORGA', q: 'Lofts in Boston?', held: a },
      { d: inB, user: 'U0USER2', channel: 'C0ORGB', q: 'Condos in Denver?', held: b },
      { d: solo.driver, user: 'U0USER3', channel: 'C0SOLO', q: 'Ranches in Austin?', held: c },
    ];
    const roots: string[] = [];
    for (const ask of asks) {
      await ask.d.command('/ask', ask.q, { user: ask.user, channel: ask.channel });
      const root = await waitFor(() => rootFor(e.fake, ask.channel, ask.q), `the root in ${ask.channel}`);
      await waitFor(() => ask.held.started() || undefined, `the answer in ${ask.channel} streaming`);
      roots.push(root.ts);
    }
    const [rootA, rootB, rootSolo] = roots as [string, string, string];
    await waitFor(async () => (await e.app.store.keys('inflight:')).length === 3, 'the three answers in flight');
    // The org's workspaces have records of their own (their places carry the workspace, not the enterprise).
    expect((await naming(TEAM_A)).length).toBeGreaterThan(1);
    expect((await naming(TEAM_B)).length).toBeGreaterThan(1);
    // The org's own keys: its installation, and its workspaces listed in its part of the store.
    expect((await e.app.store.keys(`t:slack:${ORG}:slack:org-team:`)).sort()).toEqual([
      `t:slack:${ORG}:slack:org-team:${TEAM_A}`,
      `t:slack:${ORG}:slack:org-team:${TEAM_B}`,
    ]);
    const soloConv = convKeyOf(SOLO, 'C0SOLO', rootSolo);
    expect(await e.app.store.get(soloConv)).toBeDefined();
    // A workspace of the org answered through the org's install, then installed the app on its own:
    // its own installation serves it now, and the org's leaving does not touch it.
    await org.driver.inTeam(OWN).command('/ask', 'Lofts in Miami?', { user: 'U0USER4', channel: 'C0OWN' });
    const rootOwn = await waitFor(() => rootFor(e.fake, 'C0OWN', 'Lofts in Miami?'), 'the root in the own workspace');
    await waitForAnswer(e, 'C0OWN', rootOwn.ts, 'Lofts in Miami?');
    const ownInstall = await install(e, { team: OWN, teamName: 'Own office', user: 'U0USER4' });
    const ownConv = convKeyOf(OWN, 'C0OWN', rootOwn.ts);
    expect(await e.app.store.get(ownConv)).toBeDefined();

    // The org's admin uninstalls the app org-wide: Slack revokes the enterprise's token and says so.
    const uninstalledAt = e.fake.calls.length;
    e.fake.workspaces.revoke(ORG);
    expect((await org.driver.event({ type: 'app_uninstalled' })).status).toBe(200);
    const orgLine = (l: string): boolean => l.includes(`"tenant left: slack ${ORG}`);
    const line = await waitFor(() => logLines.find(orgLine), 'the org’s leaving handled and logged');
    expect(line).toMatch(/and the 2 workspaces it served: stopped 2 answers, deleted \d+ records/);
    await waitFor(() => (a.closedEarly() && b.closedEarly()) || undefined, 'both org answers’ streams closed');

    a.release();
    b.release();
    c.release();
    await waitFor(() => {
      const msgs = answerMessages(e.fake, 'C0SOLO', rootSolo);
      return msgs.length > 0 && msgs.every((m) => !m.streaming) && sameAnswer(msgs, c.text) ? msgs : undefined;
    }, 'the solo workspace’s answer, complete');
    await e.app.bridge.conversations.idle();
    // Not one Web API call about either org workspace's thread from the uninstall on.
    expect(e.fake.calls.slice(uninstalledAt).filter(onChannel('C0ORGA'))).toEqual([]);
    expect(e.fake.calls.slice(uninstalledAt).filter(onChannel('C0ORGB'))).toEqual([]);
    for (const [channel, ts] of [
      ['C0ORGA', rootA],
      ['C0ORGB', rootB],
    ] as const) {
      const showsText = answerMessages(e.fake, channel, ts)
        .map((m) => `${shown(m.text)} ${JSON.stringify(m.blocks)}`)
        .join('\n');
      expect(showsText).not.toMatch(/interrupted|Retry|Beacon Street|Highlands/);
    }
    // Every record of the org and of both its workspaces is gone (keys and values naming them);
    // no answer record is left for crash recovery; the solo workspace keeps its conversation.
    expect(await naming(ORG, TEAM_A, TEAM_B)).toEqual([]);
    expect(await e.app.store.keys('inflight:')).toEqual([]);
    expect(await e.app.store.get(soloConv)).toBeDefined();
    expect(await e.app.store.get(`slack:installation:team:${SOLO}`)).toBeDefined();
    expect(await e.app.store.get(ownConv)).toBeDefined();
    expect(await e.app.store.get(`slack:installation:team:${OWN}`)).toBeDefined();
    // Only its marks of the org went: nothing names the org any more.
    expect(
      (await naming(OWN)).filter((k) => k.includes('slack:org') || k.startsWith('slack:installation-team:')),
    ).toEqual([]);
    expect(logLines.filter(orgLine)).toHaveLength(1);
    // Per workspace, no line of its own: the one line said it.
    expect(logLines.filter((l) => l.includes(`tenant left: slack ${TEAM_A}`))).toEqual([]);

    // tokens_revoked after it finds nothing left.
    await org.driver.event({ type: 'tokens_revoked', tokens: { bot: ['UBOT'] } });
    await waitFor(
      () => logLines.find((l) => l.includes(`tenant left: slack ${ORG}: already gone`)),
      'tokens_revoked handled',
    );
    const stoppedLines = logLines.filter((l) => new RegExp(`"msg":"tenant left: slack ${ORG}[^"]*: stopped`).test(l));
    expect(stoppedLines).toHaveLength(1);

    // The workspace with its own installation answers as before.
    await ownInstall.driver.command('/ask', 'Condos in Miami?', { user: 'U0USER4', channel: 'C0OWN' });
    const rootOwnAgain = await waitFor(() => rootFor(e.fake, 'C0OWN', 'Condos in Miami?'), 'the own workspace’s root');
    await waitForAnswer(e, 'C0OWN', rootOwnAgain.ts, 'Condos in Miami?');

    // A re-install of the org starts clean: a question in one of its workspaces is answered.
    const again = await install(e, ORG_GRANT);
    await again.driver
      .inTeam(TEAM_B)
      .command('/ask', 'Houses for sale in Denver?', { user: 'U0USER2', channel: 'C0ORGB' });
    const rootAgain = await waitFor(
      () => rootFor(e.fake, 'C0ORGB', 'Houses for sale in Denver?'),
      'the root after the re-install',
    );
    const { messages } = await waitForAnswer(e, 'C0ORGB', rootAgain.ts, 'Houses for sale in Denver?');
    for (const m of messages) expect(m.streaming ?? false).toBe(false);
  }, 60_000);
});
