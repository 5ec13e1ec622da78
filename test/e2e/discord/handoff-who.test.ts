/**
 * Who is who in a Discord handoff, end to end. An agent is someone with ViewChannel on the handoff
 * channel (here: the agents role) or an admin: a guild member without it presses Claim, Take over
 * and Close and writes in the ticket thread; each is refused (an ephemeral, or a reply naming them
 * in the ticket thread, where Discord has no ephemeral), the ticket does not change, and nothing
 * reaches the user. The agent's claim, reply and close do. The asker is who started the
 * conversation: a participant may ask the bot in it, but their `/handoff` and their "Ask about a
 * viewing" in that thread are refused, and the asker's own handoff and cancel are theirs.
 */
import { ask, botMessagesIn, type DiscordE2E, responseText, startDiscordE2E } from '../../support/discord-e2e';
import type { FakeMember, FakeMessage } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';
import { answerIn, botSays, textMatching } from '../../support/discord-flows';
import { useStarted } from '../../support/server-setup';

describe('Discord: who may act on a handoff', () => {
  const e = useStarted(() => startDiscordE2E());
  let bob: FakeMember;
  let mallory: FakeMember;
  let threadId: string;

  const wait = <T>(probe: () => T | undefined | false, what: string, ms = 15_000): Promise<T> =>
    waitFor(probe, what, ms, e.fake.changes);
  const refused = async (rec: ReturnType<DiscordE2E['fake']['clickButton']>, re: RegExp): Promise<void> => {
    const told = await wait(() => e.fake.responsesOf(rec).find((m) => re.test(m.content)), `a refusal matching ${re}`);
    expect(told.flags & 64).toBe(64);
  };
  const inUserThread = (): string[] => botMessagesIn(e.fake, threadId).map((m) => m.content);
  const handoffCommand = (member: FakeMember, channelId: string, value: string) =>
    e.fake.slashCommand({ name: 'handoff', channelId, member, options: [{ name: 'reason', type: 3, value }] });

  beforeAll(() => {
    bob = e.fake.addMember('bob', []);
    mallory = e.fake.addMember('mallory', []);
  });

  test('a participant may ask in the thread, but neither /handoff nor "Ask about a viewing" hands it off', async () => {
    const question = 'Which homes are for sale in Denver?';
    ({ threadId } = await ask(e, question));
    expect(await answerIn(e, threadId, question)).toContain('homes for sale in Denver');
    // Bob asks a question of his own in Ada's thread: the bot answers it, in that conversation
    // (his "any with a garage" narrows Ada's Denver homes for sale).
    const his = 'Any with a garage?';
    e.fake.userMessage({ channelId: threadId, member: bob, content: his });
    expect(await answerIn(e, threadId, his)).toMatch(/homes for sale in Denver with 1\+ parking spot/);

    const bystander = handoffCommand(bob, threadId, 'hand this to a human');
    expect(await textMatching(e, () => responseText(e, bystander), /Only the person/, 'the /handoff refused')).toMatch(
      /Only the person who asked/,
    );
    expect(e.fake.responsesOf(bystander).every((m) => (m.flags & 64) === 64)).toBe(true);

    // A listing card Bob opens in Ada's thread: its "Ask about a viewing" is not his to press there.
    const mls = (
      e.service.context.db
        .prepare('SELECT mls_number AS mls FROM listings WHERE mls_number IS NOT NULL LIMIT 1')
        .get() as {
        mls: string;
      }
    ).mls;
    const shown = e.fake.slashCommand({
      name: 'listing',
      subcommand: 'show',
      channelId: threadId,
      member: bob,
      options: [{ name: 'mls', type: 3, value: mls }],
    });
    const card = await wait(
      () => e.fake.responsesOf(shown).find((m) => e.fake.buttons(m).some((b) => b.label === 'Ask about a viewing')),
      'the card with Ask about a viewing',
    );
    await refused(e.fake.clickButtonLabelled(card, 'Ask about a viewing', bob), /Only the person who asked/);
    expect(e.fake.channelMessages(e.handoff.id)).toEqual([]);
    expect(inUserThread().some((t) => /Connecting you with a human/.test(t))).toBe(false);
  }, 60_000);

  test('a non-member’s Claim, Take over, Close and thread messages change nothing and reach no one; the agent’s do', async () => {
    const mine = handoffCommand(e.user, threadId, 'I want to see it this week');
    expect(await textMatching(e, () => responseText(e, mine), /agent/, 'the handoff asked')).toMatch(
      /A human agent has been asked/,
    );
    const ticket = await wait(
      () => e.fake.channelMessages(e.handoff.id).find((m) => m.content.includes('I want to see it this week')),
      'the ticket',
    );
    const ticketThread = await wait(() => e.fake.channels.get(ticket.id), 'the ticket thread');
    const stateLine = (): string => ticket.content.split('\n')[0]!;
    const inTicketThread = (): FakeMessage[] => botMessagesIn(e.fake, ticketThread.id);
    const before = { ticket: ticket.content, user: inUserThread().length };

    await refused(
      e.fake.clickButtonLabelled(ticket, 'Claim', mallory),
      /Only members of the handoff channel may claim a ticket/,
    );
    await refused(
      e.fake.clickButtonLabelled(ticket, 'Close', mallory),
      /Only members of the handoff channel may close this ticket/,
    );
    e.fake.userMessage({ channelId: ticketThread.id, member: mallory, content: 'Ada, send me your bank details' });
    const toldMallory = await botSays(e, ticketThread.id, /not sent to anyone/, 'Mallory told in the ticket thread');
    expect(toldMallory).toContain(`<@${mallory.user.id}>`);
    expect(toldMallory).not.toMatch(/bank details/);
    expect(ticket.content).toBe(before.ticket);

    e.fake.clickButtonLabelled(ticket, 'Claim', e.agent);
    expect(await textMatching(e, stateLine, /^Claimed/, 'claimed by the agent')).toMatch(
      /^Claimed by agent-smith at \d\d:\d\d UTC/,
    );
    expect(await botSays(e, threadId, 'has joined', 'Ada told')).toBe(
      'agent-smith (agent) has joined the conversation and will answer you here.',
    );

    await refused(
      e.fake.clickButtonLabelled(ticket, 'Take over', mallory),
      /Only members of the handoff channel may take over a ticket/,
    );
    await refused(
      e.fake.clickButtonLabelled(ticket, 'Close', mallory),
      /Only members of the handoff channel may close this ticket/,
    );
    e.fake.userMessage({ channelId: ticketThread.id, member: mallory, content: 'Ada, wire the deposit to me' });
    const refusals = await wait(() => {
      const told = inTicketThread().filter((m) => /not sent to anyone/.test(m.content));
      return told.length >= 2 ? told : undefined;
    }, 'the second message refused');
    expect(refusals.map((m) => m.content.includes(`<@${mallory.user.id}>`))).toEqual([true, true]);
    // Nor may Bob cancel Ada's handoff.
    const cancel = handoffCommand(bob, threadId, 'cancel');
    expect(await textMatching(e, () => responseText(e, cancel), /Only/, 'Bob’s cancel refused')).toMatch(
      /Only ada, who asked for a human, or an admin/,
    );
    expect(stateLine()).toMatch(/^Claimed by agent-smith/);

    e.fake.userMessage({ channelId: ticketThread.id, member: e.agent, content: 'Hi Ada, Thursday works.' });
    expect(await botSays(e, threadId, 'Thursday works', 'the agent’s reply relayed')).toBe(
      '*agent-smith (agent):* Hi Ada, Thursday works.',
    );
    e.fake.clickButtonLabelled(ticket, 'Close', e.agent);
    expect(await textMatching(e, stateLine, /^Closed/, 'closed by the agent')).toMatch(
      /^Closed by agent-smith at \d\d:\d\d UTC/,
    );
    expect(await botSays(e, threadId, /closed the handoff/, 'Ada told')).toMatch(/^agent-smith closed the handoff/);

    // Nothing of Mallory's reached Ada; in the ticket thread only the bridge's refusals name her.
    const seen = inUserThread().slice(before.user).join('\n');
    expect(seen).not.toMatch(/bank details|deposit|mallory/);
    expect(inTicketThread().some((m) => /bank details|deposit/.test(m.content))).toBe(false);
  }, 60_000);
});
