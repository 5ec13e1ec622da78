/**
 * A workspace that uninstalls leaves nothing of its users or channels in the bridge's process: after
 * a re-install, the bridge asks Slack again (conversations.members of the handoff channel whose
 * members it had listed for a round-robin offer, and users.info for the agent it had named), where a
 * copy kept in the process would have answered for minutes more. The lookups are first shown to be
 * cached (another ticket within the minute asks Slack nothing), so the re-reads are the uninstall's doing.
 */
import { button } from '../../../fakes/slack-blocks';
import { type SlackDriver, waitFor } from '../../../fakes/slack-requests';
import { saveOffice } from '../../../src/core/tenants/offices';
import { tenantFor } from '../../../src/state/tenant-store';
import { useStarted } from '../../support/server-setup';
import { rootFor, waitForAnswer } from '../../support/slack-e2e';
import { pressTalkToHuman } from '../../support/slack-flows';
import { install, startOAuthE2E } from '../../support/slack-oauth';

const TEAM = 'T0LEAVES';
const ASKED_IN = 'C0ASKL';
const HANDOFF = 'C0HANDL';
const AGENT = 'U0AGENTL';
const USER = 'U0USER1';

describe('Slack OAuth e2e: leaving takes the workspace’s cached users and channels with it', () => {
  const logLines: string[] = [];
  const e = useStarted(() => startOAuthE2E({ logLines, env: { HANDOFF_ASSIGN: 'round-robin' } }));

  /** Calls of `method` the fake saw in TEAM whose arguments include `args`. */
  const asked = (method: string, args: Record<string, string>): number =>
    e.fake.calls.filter(
      (c) => c.method === method && c.team === TEAM && Object.entries(args).every(([k, v]) => c.args[k] === v),
    ).length;
  const userLookups = () => asked('users.info', { user: AGENT });
  const memberLookups = () => asked('conversations.members', { channel: HANDOFF });

  async function installWithChannel(): Promise<SlackDriver> {
    const { driver } = await install(e, { team: TEAM, teamName: 'Leaving office', user: USER });
    await saveOffice({ store: e.app.store }, tenantFor('slack', TEAM), { handoffChannel: HANDOFF });
    return driver;
  }

  /**
   * USER asks for a human; the ticket is offered round-robin to the handoff channel's members, which
   * the bridge lists (conversations.members) and names (users.info).
   */
  async function handOff(d: SlackDriver, question: string): Promise<void> {
    await pressTalkToHuman(e.fake, d, USER, ASKED_IN, question);
    const ticket = await waitFor(
      () => e.fake.channelMessages(HANDOFF).find((m) => m.text.includes(question) && button(m, 'Claim')),
      'the ticket',
    );
    await waitFor(
      () => e.fake.replies(HANDOFF, ticket.ts).find((m) => m.text.startsWith(`Offered to <@${AGENT}>`)),
      'the offer to the agent',
    );
  }

  test('after app_uninstalled and a re-install, users.info and conversations.members are asked again', async () => {
    e.fake.workspaces.addChannels(TEAM, ASKED_IN, HANDOFF);
    e.fake.channelMembers[HANDOFF] = [AGENT];
    const driver = await installWithChannel();

    await handOff(driver, 'Lofts in Boston?');
    const users = userLookups();
    const members = memberLookups();
    expect(users).toBeGreaterThan(0);
    expect(members).toBeGreaterThan(0);
    // Cached: another ticket within the minute is offered without asking Slack again.
    await handOff(driver, 'Lofts in Boston, with parking?');
    expect([userLookups(), memberLookups()]).toEqual([users, members]);

    e.fake.workspaces.revoke(TEAM);
    expect((await driver.event({ type: 'app_uninstalled' })).status).toBe(200);
    await waitFor(() => logLines.find((l) => l.includes(`tenant left: slack ${TEAM}:`)), 'the workspace left');
    // Nothing of its users or channels stays in the store either.
    expect((await e.app.store.keys('')).filter((k) => k.includes(TEAM))).toEqual([]);

    const again = await installWithChannel();
    await handOff(again, 'Lofts in Boston, again?');
    expect(userLookups()).toBeGreaterThan(users);
    expect(memberLookups()).toBeGreaterThan(members);
  });

  test('a workspace that refused native streaming is asked again after a re-install', async () => {
    const team = 'T0STREAMS';
    const channel = 'C0STREAMS';
    e.fake.workspaces.addChannels(team, channel);
    const starts = () => e.fake.calls.filter((c) => c.method === 'chat.startStream' && c.team === team).length;
    const answered = async (d: SlackDriver, question: string) => {
      await d.command('/ask', question, { user: USER, channel });
      const root = await waitFor(() => rootFor(e.fake, channel, question), 'the root');
      await waitForAnswer(e, channel, root.ts, question);
    };
    e.fake.setStreaming('unknown_method');
    const first = await install(e, { team, teamName: 'Old plan', user: USER });
    await answered(first.driver, 'Homes in Austin?');
    expect(starts()).toBe(1);
    // Refused: remembered, the next answer is not streamed natively.
    await answered(first.driver, 'Homes in Dallas?');
    expect(starts()).toBe(1);

    e.fake.workspaces.revoke(team);
    expect((await first.driver.event({ type: 'app_uninstalled' })).status).toBe(200);
    await waitFor(() => logLines.find((l) => l.includes(`tenant left: slack ${team}:`)), 'the workspace left');

    // Installed again (on a plan with native streaming now): a start is tried there again.
    e.fake.setStreaming('on');
    const again = await install(e, { team, teamName: 'New plan', user: USER });
    await answered(again.driver, 'Homes in Houston?');
    expect(starts()).toBe(2);
  });
});
