/**
 * Who is an agent where many workspaces installed the app (OAuth) and each connected its own
 * handoff channel with `/chatbot connect`: the members of a workspace's own channel, admins or not.
 * A member of A's channel sees A's queue, sets themself away and back, claims A's ticket and closes
 * it. A member of B's channel pressing A's Claim (forged, with A's team or with B's own) is refused,
 * as is B's owner (an admin of B only), a member of A who is not in A's channel, and a member of the environment's channel (which
 * serves no workspace here): nobody counts as an agent through another tenant's channel.
 */
import type { FakeMessage } from '../../../fakes/fake-slack';
import { button } from '../../../fakes/slack-blocks';
import { type SlackDriver, waitFor } from '../../../fakes/slack-requests';
import { type Bot, makeChatbots, serviceKeys } from '../../support/connect-e2e';
import { AGENT, HANDOFF_CHANNEL, rootFor, waitForAnswer } from '../../support/slack-e2e';
import { becomes, connectByForm, ephemeralTo, textMatching } from '../../support/slack-flows';
import { install, type OAuthE2E, startOAuthE2E } from '../../support/slack-oauth';
import { useStarted } from '../../support/server-setup';

const OWNER_A = 'U0OWNERA';
const OWNER_B = 'U0OWNERB';
/** Members of each workspace's own handoff channel: neither is an admin of anything. */
const AGENT_A = 'U0AGENTA';
const AGENT_B = 'U0AGENTB';
/** In workspace A, in none of its handoff channels. */
const MALLORY = 'U0MALLORY';
const ASKER = 'U0USER1';

/** `/chatbot connect` as the workspace's owner, its modal submitted with the chatbot and the handoff channel. */
function connect(e: OAuthE2E, d: SlackDriver, owner: string, channel: string, bot: Bot, desk: string) {
  return connectByForm(e.fake, d, owner, channel, { chatbotId: bot.id, ...serviceKeys(e), handoffChannel: desk });
}

describe('Slack OAuth e2e: the members of a workspace’s own handoff channel are its agents', () => {
  const e = useStarted(() => startOAuthE2E());
  let a: SlackDriver;
  let b: SlackDriver;
  let ticket: FakeMessage;
  let asked: FakeMessage;
  const now = (): FakeMessage => e.fake.message('C0ADESK', ticket.ts)!;
  const stateLine = (): string => now().text.split('\n')[0]!;
  const press = (d: SlackDriver, label: string, user: string, where = { channel: 'C0ADESK', team: '' }) =>
    d.click(
      button(now(), label)!,
      { channel: where.channel, messageTs: ticket.ts },
      { user, ...(where.team ? { team: where.team } : {}) },
    );

  beforeAll(async () => {
    e.fake.workspaces.addChannels('T0AAA', 'C0AGEN', 'C0ADESK');
    e.fake.workspaces.addChannels('T0BBB', 'C0BGEN', 'C0BDESK');
    e.fake.workspaceOwners.add(OWNER_A);
    e.fake.workspaceOwners.add(OWNER_B);
    e.fake.channelMembers.C0ADESK = [AGENT_A];
    e.fake.channelMembers.C0BDESK = [AGENT_B];
    a = (await install(e, { team: 'T0AAA', teamName: 'Office A', user: OWNER_A })).driver;
    b = (await install(e, { team: 'T0BBB', teamName: 'Office B', user: OWNER_B })).driver;
    const [botA, botB] = (await makeChatbots(e, 'Chatbot A', 'Chatbot B')) as [Bot, Bot];
    await connect(e, a, OWNER_A, 'C0AGEN', botA, 'C0ADESK');
    await connect(e, b, OWNER_B, 'C0BGEN', botB, 'C0BDESK');

    const question = 'Homes in Austin, please?';
    await a.command('/ask', question, { user: ASKER, channel: 'C0AGEN' });
    asked = await waitFor(() => rootFor(e.fake, 'C0AGEN', question), 'the conversation in A');
    await waitForAnswer(e, 'C0AGEN', asked.ts, question);
    await a.command('/handoff', 'a person please', { user: ASKER, channel: 'C0AGEN' });
    ticket = await waitFor(
      () => e.fake.channelMessages('C0ADESK').find((m) => button(m, 'Claim')),
      'the ticket in A’s channel',
    );
  }, 60_000);

  test('a member of A’s channel sees A’s queue and sets themself away and back; others are told it is for agents', async () => {
    const eph = e.fake.ephemerals.length;
    await a.command('/handoff', 'queue', { user: AGENT_A, channel: 'C0ADESK' });
    expect((await ephemeralTo(e.fake, AGENT_A, /Handoff queue|handoff queue is/, eph)).text).toMatch(
      /^\*Handoff queue\*: 1 open, 1 waiting/,
    );
    await a.command('/handoff', 'away', { user: AGENT_A, channel: 'C0ADESK' });
    expect((await ephemeralTo(e.fake, AGENT_A, /^You are away|Away and back/, eph)).text).toMatch(/^You are away:/);
    await a.command('/handoff', 'back', { user: AGENT_A, channel: 'C0ADESK' });
    expect((await ephemeralTo(e.fake, AGENT_A, /^You are back|Away and back/, eph)).text).toMatch(/^You are back:/);

    // Not in A's channel; in B's channel; in the environment's channel (no workspace's here).
    for (const user of [MALLORY, AGENT_B, AGENT]) {
      await a.command('/handoff', 'queue', { user, channel: 'C0AGEN' });
      expect((await ephemeralTo(e.fake, user, /queue/, eph)).text).toBe(
        'The handoff queue is for members of the handoff channel and admins.',
      );
      await a.command('/handoff', 'away', { user, channel: 'C0AGEN' });
      expect((await ephemeralTo(e.fake, user, /Away and back/, eph)).text).toBe(
        'Away and back are for members of the handoff channel.',
      );
    }
  });

  test('the App Home shows A’s queue to the member of A’s channel, and none to the member of B’s', async () => {
    const homes = e.fake.homeViews.length;
    await a.event({ type: 'app_home_opened', user: AGENT_A, tab: 'home' });
    await a.event({ type: 'app_home_opened', user: AGENT_B, tab: 'home' });
    const homeOf = (user: string) =>
      waitFor(() => e.fake.homeViews.slice(homes).find((v) => v.user === user), `the App Home of ${user}`);
    expect(JSON.stringify(await homeOf(AGENT_A))).toContain('Handoff queue*: 1 open');
    expect(JSON.stringify(await homeOf(AGENT_B))).toContain('The handoff queue shows here for members');
  });

  test('no one outside A’s channel claims A’s ticket; the member of A’s channel claims and closes it', async () => {
    const eph = e.fake.ephemerals.length;
    await press(a, 'Claim', MALLORY);
    expect((await ephemeralTo(e.fake, MALLORY, /may claim/, eph)).text).toBe(
      'Only members of the handoff channel may claim a ticket.',
    );
    // B's agent, pressing A's Claim as if from A.
    await press(a, 'Claim', AGENT_B, { channel: 'C0ADESK', team: 'T0AAA' });
    expect((await ephemeralTo(e.fake, AGENT_B, /may claim/, eph)).text).toBe(
      'Only members of the handoff channel may claim a ticket.',
    );
    // From B, in B's own channel: A's ticket has no agents in B, and B's owner (an admin of B) is no admin of it.
    for (const [who, user] of [
      ['B’s agent', AGENT_B],
      ['B’s owner', OWNER_B],
    ] as const) {
      await press(b, 'Claim', user, { channel: 'C0BDESK', team: 'T0BBB' });
      // Its refusal, or the ticket claimed by them (which the expectation then shows).
      const fromB = await waitFor(
        () =>
          e.fake.ephemerals.slice(eph).find((m) => m.user === user && m.channel === 'C0BDESK') ??
          (/^Waiting since/.test(stateLine()) ? undefined : stateLine()),
        `the refusal to ${who}`,
      );
      expect(fromB).toMatchObject({
        channel: 'C0BDESK',
        text: 'Only members of the handoff channel may claim a ticket.',
      });
      expect(stateLine()).toMatch(/^Waiting since/);
    }

    await press(a, 'Claim', AGENT_A);
    expect(await becomes(stateLine, /^Claimed/, 'claimed by A’s agent')).toMatch(/^Claimed by /);
    const userThread = () => e.fake.replies('C0AGEN', asked.ts).map((m) => m.text);
    expect(await textMatching(userThread, /has joined/, 'the asker told')).toMatch(/\(agent\) has joined/);
    await press(a, 'Close', AGENT_A);
    expect(await becomes(stateLine, /^Closed/, 'closed by A’s agent')).toMatch(/^Closed by /);
    expect(await textMatching(userThread, /closed the handoff/, 'the asker told')).toMatch(/closed the handoff/);
    // Nothing was posted in B's channel, and B's token never touched A's.
    expect(e.fake.channelMessages('C0BDESK')).toEqual([]);
    expect(e.fake.channelMessages(HANDOFF_CHANNEL)).toEqual([]);
  });
});
