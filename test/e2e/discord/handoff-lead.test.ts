/**
 * A lead through a Discord handoff, end to end: who may press what, the state line through the
 * ticket's life, a reminder, the lead summary and the Discord message link, internal notes, release
 * and take-over, the satisfaction rating, /handoff queue and the figures in /analytics.
 */
import {
  analyticsOf,
  ask,
  botMessagesIn,
  responseText,
  startDiscordE2E,
  waitForAnswer,
  type DiscordE2E,
  handoffIn,
} from '../../support/discord-e2e';
import { type FakeMember, type FakeMessage, VIEW_CHANNEL } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';
import { panelOf } from '../../support/png-chart';

describe('Discord: a lead through a handoff', () => {
  let e: DiscordE2E;
  let threadId: string;
  let ticket: FakeMessage;
  let bob: FakeMember;
  let bea: FakeMember;

  const stateLine = (): string => ticket.content.split('\n')[0]!;
  const inTicketThread = (): string[] => botMessagesIn(e.fake, ticket.id).map((m) => m.content);
  const inUserThread = (): string[] => botMessagesIn(e.fake, threadId).map((m) => m.content);
  const wait = <T>(probe: () => T | undefined | false, what: string, ms = 15_000): Promise<T> =>
    waitFor(probe, what, ms, e.fake.changes);
  const refusedTo = async (rec: ReturnType<DiscordE2E['fake']['clickButton']>, re: RegExp): Promise<void> => {
    const told = await wait(() => e.fake.responsesOf(rec).find((m) => re.test(m.content)), `a refusal matching ${re}`);
    expect(told.flags & 64).toBe(64);
  };

  beforeAll(async () => {
    e = await startDiscordE2E({ env: { HANDOFF_REMIND_S: '1' } });
    bob = e.fake.addMember('bob', []);
    bea = e.fake.addMember('bea-broker', [e.agentRole]);
  });

  afterAll(async () => {
    await e?.close();
  });

  test('Talk to a human is the asker’s; the ticket shows the state line, a Discord link, the channel name and the lead', async () => {
    const question = 'I need a 2 bedroom condo in Miami, budget around $500,000';
    ({ threadId } = await ask(e, question));
    await waitForAnswer(e, threadId, question);
    const follow = 'Reach me at ada@example.org or +1 305 555 0199. What about MIA240021 and 77 NE 2nd Ave?';
    e.fake.userMessage({ channelId: threadId, member: e.user, content: follow });
    await waitForAnswer(e, threadId, follow);
    // A listing card ada opened counts among the listings of her lead.
    const card = e.service.context.db
      .prepare(
        `SELECT mls_number AS mls FROM listings WHERE mls_number IS NOT NULL AND mls_number <> 'MIA240021' LIMIT 1`,
      )
      .get() as { mls: string };
    const shown = e.fake.slashCommand({
      name: 'listing',
      subcommand: 'show',
      channelId: e.general.id,
      member: e.user,
      options: [{ name: 'mls', type: 3, value: card.mls }],
    });
    await wait(() => e.fake.responsesOf(shown).length > 0 && responseText(e, shown).includes(card.mls), 'the card');
    const answer = botMessagesIn(e.fake, threadId)
      .filter((m) => e.fake.buttons(m).some((b) => b.label === 'Talk to a human'))
      .at(-1)!;

    await refusedTo(e.fake.clickButtonLabelled(answer, 'Talk to a human', bob), /Only the person who asked/);
    expect(e.fake.channelMessages(e.handoff.id)).toEqual([]);

    e.fake.clickButtonLabelled(answer, 'Talk to a human', e.user);
    ticket = await wait(
      () => e.fake.channelMessages(e.handoff.id).find((m) => e.fake.buttons(m).some((b) => b.label === 'Claim')),
      'the ticket',
    );
    const answerText = answer.content;
    await wait(
      () => !botMessagesIn(e.fake, threadId).some((m) => e.fake.buttons(m).some((b) => b.label === 'Talk to a human')),
      'Talk to a human removed',
    );
    expect(answer.content).toBe(answerText);
    expect(stateLine()).toMatch(/^Waiting since \d\d:\d\d UTC/);
    expect(ticket.content).toContain('ada');
    expect(ticket.content).toContain('#general');
    expect(ticket.content).toContain(`https://discord.com/channels/${e.fake.guildId}/${e.general.id}/${threadId}`);
    for (const fact of [
      'ada@example.org',
      '+1 305 555 0199',
      'City: Miami',
      'Budget: $500,000',
      'Bedrooms: 2',
      'MLS MIA240021',
      '77 NE 2nd Ave',
      `MLS ${card.mls}`,
    ]) {
      expect(ticket.content).toContain(fact);
    }
  }, 60_000);

  test('a reminder while it waits; claim; Close and Release by others refused; notes stay with the agents', async () => {
    await wait(
      () => inTicketThread().find((t) => /Reminder \(1 of 3\): ada has been waiting \d+ s/.test(t)),
      'the reminder',
    );
    e.fake.clickButtonLabelled(ticket, 'Claim', e.agent);
    await wait(
      () => /^Claimed by agent-smith at \d\d:\d\d UTC, \d+ s after the request/.test(stateLine()),
      'the claimed state line (by whom, time to claim)',
    );
    await wait(() => inUserThread().find((t) => t.includes('agent-smith (agent) has joined')), 'the user told');

    await refusedTo(e.fake.clickButtonLabelled(ticket, 'Close', bea), /Only agent-smith .* or an admin may close/);
    await refusedTo(
      e.fake.clickButtonLabelled(ticket, 'Release', bea),
      /Only agent-smith, who claimed this ticket, may release it/,
    );
    const notice = botMessagesIn(e.fake, threadId).find((m) => e.fake.buttons(m).some((b) => b.label === 'Cancel'))!;
    await refusedTo(
      e.fake.clickButtonLabelled(notice, 'Cancel', bob),
      /Only ada, who asked for a human, or an admin may cancel/,
    );
    expect(stateLine()).toMatch(/^Claimed by agent-smith/);

    // A restart between the claim and the first reply loses nothing and doubles nothing.
    await e.restart();
    e.fake.userMessage({ channelId: ticket.id, member: e.agent, content: 'Note: asked the lender already' });
    e.fake.userMessage({ channelId: ticket.id, member: bea, content: 'I can cover Saturday' });
    e.fake.userMessage({ channelId: ticket.id, member: e.agent, content: 'Hi Ada, both are available.' });
    await wait(() => inUserThread().find((t) => t.includes('Hi Ada, both are available.')), 'the claimer’s reply');
    await wait(
      () => inTicketThread().filter((t) => t.startsWith('Internal note from')).length >= 2,
      'two notes marked',
    );
    // Counted once all three messages are handled, so a copy that came after the first is seen too.
    expect(inUserThread().filter((t) => t.includes('Hi Ada, both are available.'))).toHaveLength(1);
    expect(inUserThread().filter((t) => t.includes('agent-smith (agent) has joined'))).toHaveLength(1);
    expect(inTicketThread().filter((t) => t.startsWith('Internal note from'))).toHaveLength(2);
    const seen = inUserThread().join('\n');
    expect(seen).not.toContain('lender');
    expect(seen).not.toContain('Saturday');
  }, 60_000);

  test('release returns it to Waiting; take over after confirming; close, and the user’s rating on the ticket', async () => {
    e.fake.clickButtonLabelled(ticket, 'Release', e.agent);
    await wait(() => /^Waiting since/.test(stateLine()), 'waiting again');
    await wait(
      () => inUserThread().find((t) => /someone else will pick it up/.test(t)),
      'the user told about the release',
    );
    e.fake.clickButtonLabelled(ticket, 'Claim', bea);
    await wait(() => /^Claimed by bea-broker/.test(stateLine()), 'bea claims');

    const ask = e.fake.clickButtonLabelled(ticket, 'Take over', e.agent);
    const confirm = await wait(
      () => e.fake.responsesOf(ask).find((m) => /Take this ticket over from bea-broker\?/.test(m.content)),
      'the confirmation',
    );
    expect(stateLine()).toMatch(/^Claimed by bea-broker/);
    e.fake.clickButtonLabelled(confirm, 'Take over', e.agent);
    await wait(() => /^Claimed by agent-smith/.test(stateLine()), 'taken over');
    await wait(
      () =>
        inUserThread().find((t) => t.includes('agent-smith (agent) now answers you here, taking over from bea-broker')),
      'the user told who answers',
    );

    e.fake.clickButtonLabelled(ticket, 'Close', e.agent);
    await wait(() => /^Closed by agent-smith at \d\d:\d\d UTC/.test(stateLine()), 'closed');
    expect(e.fake.buttons(ticket)).toEqual([]);
    const prompt = await wait(
      () => botMessagesIn(e.fake, threadId).find((m) => e.fake.buttons(m).some((b) => b.label === '5')),
      'the rating prompt',
    );
    await wait(
      () => !botMessagesIn(e.fake, threadId).some((m) => e.fake.buttons(m).some((b) => b.label === 'Cancel')),
      'the Cancel button gone',
    );
    // A restart between the close and the rating: the buttons still work, the score lands once.
    await e.restart();
    await refusedTo(e.fake.clickButtonLabelled(prompt, '1', bob), /Only ada, who was helped, may rate this/);
    e.fake.clickButtonLabelled(prompt, '5', e.user);
    await wait(
      () => /rated 5\/5/.test(stateLine()) && ticket.content.includes('Satisfaction: 5/5'),
      'the score on the ticket',
    );
    await wait(() => inTicketThread().find((t) => t.includes('ada rated the help 5/5')), 'the rating in the thread');
    // The rating buttons no longer apply: the prompt thanks the user in their place.
    await wait(
      () => prompt.content.includes('You rated the help 5/5') && e.fake.buttons(prompt).length === 0,
      'the thanks in place of the rating buttons',
    );
    expect(
      botMessagesIn(e.fake, threadId).filter((m) => /How would you rate|You rated the help/.test(m.content)),
    ).toHaveLength(1);
  }, 60_000);

  test('/handoff queue for agents (in the handoff channel) and admins, refused to others; figures in /analytics', async () => {
    const question = 'Which homes are for rent in Denver?';
    const second = await ask(e, question, bob);
    await waitForAnswer(e, second.threadId, question);
    handoffIn(e, second.threadId, 'call me', bob);
    const secondTicket = await wait(
      () => e.fake.channelMessages(e.handoff.id).find((m) => m.id !== ticket.id && m.content.includes('call me')),
      'the second ticket',
    );
    // The ticket's thread and link are stored right after its message is posted.
    await waitFor(
      async () => (await e.app.bridge.handoffs.queue()).some((t) => t.ticketLink),
      'the second ticket stored with its link',
    );

    const refused = handoffIn(e, e.general.id, 'queue', bob);
    await wait(() => /for members of the handoff channel and admins/.test(responseText(e, refused)), 'the refusal');
    expect(responseText(e, refused)).not.toMatch(/Handoff queue/);
    // An agent (a member who can view the private handoff channel, through the agents role) gets
    // the queue from any channel, though not an admin.
    const fromGeneral = handoffIn(e, e.general.id, 'queue', e.agent);
    await wait(() => /Handoff queue/.test(responseText(e, fromGeneral)), 'the queue for an agent in #general');
    expect(responseText(e, fromGeneral)).toMatch(/bob \(Discord\)/);
    // A member let in by a member overwrite (a CHANNEL_UPDATE after the bot started) is an agent
    // too, and is refused again once the overwrite is gone (the update and the command travel the
    // same gateway connection, in that order).
    const view = VIEW_CHANNEL.toString();
    const overwrites = [...(e.handoff.permission_overwrites ?? [])];
    e.fake.setOverwrites(e.handoff.id, [...overwrites, { id: bob.user.id, type: 1, allow: view, deny: '0' }]);
    const letIn = handoffIn(e, e.general.id, 'queue', bob);
    await wait(() => /Handoff queue|for members of/.test(responseText(e, letIn)), 'bob let in');
    expect(responseText(e, letIn)).toMatch(/Handoff queue/);
    e.fake.setOverwrites(e.handoff.id, overwrites);
    const shutOut = handoffIn(e, e.general.id, 'queue', bob);
    await wait(() => /Handoff queue|for members of/.test(responseText(e, shutOut)), 'bob shut out');
    expect(responseText(e, shutOut)).toMatch(/for members of the handoff channel and admins/);
    const queue = handoffIn(e, e.handoff.id, 'queue', e.agent);
    await wait(() => /Handoff queue/.test(responseText(e, queue)), 'the queue');
    expect(responseText(e, queue)).toMatch(/1 open, 1 waiting/);
    expect(responseText(e, queue)).toMatch(/Waiting \d+ s · bob \(Discord\) · https:\/\/discord\.com\/channels\//);
    const admin = handoffIn(e, e.general.id, 'queue', e.admin);
    await wait(() => /bob \(Discord\)/.test(responseText(e, admin)), 'the queue for an admin');

    const { text, spec } = await analyticsOf(e);
    expect(text).toContain('Handoffs: 2 opened, 1 claimed, 1 closed, 0 cancelled, 0 timed out');
    expect(text).toContain('Satisfaction: 5/5 average of 1 rating');
    expect(text).toMatch(/Time to first agent reply: p50 \d+ s/);
    // The chart attached to the reply is a PNG whose panels carry the same figures.
    expect(panelOf(spec, 'Handoffs').values).toEqual([2, 1, 1, 0, 0]);
    expect(panelOf(spec, 'Satisfaction')).toMatchObject({
      title: 'Satisfaction (1-5, 1 rating)',
      values: [5],
      max: 5,
    });
    const [claim50, claim90, reply50, reply90] = panelOf(spec, 'Handoff waits').values;
    expect([claim90, reply90]).toEqual([claim50, reply50]);
    expect(reply50!).toBeGreaterThanOrEqual(claim50!);
    const replyText = Number(/Time to first agent reply: p50 (\d+) s/.exec(text)![1]);
    expect(Math.abs(reply50! * 60 - replyText)).toBeLessThanOrEqual(1);

    // An agent may not close a ticket nobody claimed; an admin may.
    await refusedTo(
      e.fake.clickButtonLabelled(secondTicket, 'Close', e.agent),
      /Only an admin may close a ticket nobody has claimed/,
    );
    e.fake.clickButtonLabelled(secondTicket, 'Close', e.admin);
    await wait(() => /^Closed by alan-admin/.test(secondTicket.content), 'the admin closed it');
  }, 90_000);
});
