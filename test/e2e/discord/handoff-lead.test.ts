/**
 * A lead through a Discord handoff, end to end: who may press what, the state line through the
 * ticket's life, a reminder, the lead summary and the Discord message link, internal notes, release
 * and take-over, the satisfaction rating, /handoff queue and the figures in /analytics. The clock is
 * injected: the reminder comes when the test moves it HANDOFF_REMIND_S (5 min) on and runs the sweep.
 */
import { tenantFor } from '../../../src/state/tenant-store';
import {
  analyticsOf,
  ask,
  botMessagesIn,
  responseText,
  startDiscordE2E,
  type DiscordE2E,
  handoffIn,
} from '../../support/discord-e2e';
import { type FakeMember, type FakeMessage, VIEW_CHANNEL } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';
import { seriesOf } from '../../support/png-chart';
import { useStarted } from '../../support/server-setup';
import {
  answerIn,
  botSays,
  buttonsWithout,
  firstLine,
  labelsWithout,
  reminderLine,
  sweepAfter,
  textMatching,
} from '../../support/discord-flows';

describe('Discord: a lead through a handoff', () => {
  let offset = 0;
  const e = useStarted(() => startDiscordE2E({ env: { HANDOFF_REMIND_S: '300' }, now: () => Date.now() + offset }));
  let threadId: string;
  let ticket: FakeMessage;
  let bob: FakeMember;
  let bea: FakeMember;

  const stateLine = (): string => ticket.content.split('\n')[0]!;
  const inTicketThread = (): string[] => botMessagesIn(e.fake, ticket.id).map((m) => m.content);
  const inUserThread = (): string[] => botMessagesIn(e.fake, threadId).map((m) => m.content);
  const wait = <T>(probe: () => T | undefined | false, what: string, ms = 15_000): Promise<T> =>
    waitFor(probe, what, ms, e.fake.changes);
  /** The state line once it matches `re`. */
  const stateOnce = (re: RegExp, what: string): Promise<string> => textMatching(e, stateLine, re, what);
  /** The bot's message in the user's thread that contains `text`. */
  const toUser = (text: string, what: string): Promise<string> => botSays(e, threadId, text, what);
  const refusedTo = async (rec: ReturnType<DiscordE2E['fake']['clickButton']>, re: RegExp): Promise<void> => {
    const told = await wait(() => e.fake.responsesOf(rec).find((m) => re.test(m.content)), `a refusal matching ${re}`);
    expect(told.flags & 64).toBe(64);
  };

  beforeAll(() => {
    bob = e.fake.addMember('bob', []);
    bea = e.fake.addMember('bea-broker', [e.agentRole]);
  });

  test('Talk to a human is the asker’s; the ticket shows the state line, a Discord link, the channel name and the lead', async () => {
    const question = 'I need a 2 bedroom condo in Miami, budget around $500,000';
    ({ threadId } = await ask(e, question));
    // The bot answers what she asked (a 2-bedroom condo in Miami) before she asks for a human.
    expect(await answerIn(e, threadId, question)).toContain('condos in Miami with 2+ bedrooms');
    const follow = 'Reach me at ada@example.org or +1 305 555 0199. What about MIA240021 and 77 NE 2nd Ave?';
    e.fake.userMessage({ channelId: threadId, member: e.user, content: follow });
    expect(await answerIn(e, threadId, follow)).toContain('(MLS MIA240021)');
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
    expect(await textMatching(e, () => responseText(e, shown), card.mls, 'the card')).toContain(`**MLS:** ${card.mls}`);
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
    expect(await buttonsWithout(e, threadId, 'Talk to a human')).toContain('Cancel');
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
    await sweepAfter(
      e,
      (ms) => {
        offset += ms;
      },
      300_000,
    );
    expect(await botSays(e, ticket.id, 'Reminder', 'the reminder')).toBe(reminderLine(1, 'ada', '5 min'));
    e.fake.clickButtonLabelled(ticket, 'Claim', e.agent);
    expect(await stateOnce(/^Claimed/, 'the claimed state line (by whom, time to claim)')).toMatch(
      /^Claimed by agent-smith at \d\d:\d\d UTC, 5 min after the request/,
    );
    expect(await toUser('has joined', 'the user told')).toBe(
      'agent-smith (agent) has joined the conversation and will answer you here.',
    );

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
    expect(await toUser('Hi Ada, both are available.', 'the claimer’s reply')).toBe(
      '*agent-smith (agent):* Hi Ada, both are available.',
    );
    const notes = await wait(() => {
      const marked = inTicketThread().filter((t) => t.startsWith('Internal note from'));
      return marked.length >= 2 ? marked : undefined;
    }, 'two notes marked');
    expect(notes).toEqual([
      'Internal note from agent-smith: kept for the team, not sent to ada.',
      "Internal note from bea-broker: kept for the team, not sent to ada. Only agent-smith's messages reach them.",
    ]);
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
    expect(await stateOnce(/^Waiting/, 'waiting again')).toMatch(/^Waiting since \d\d:\d\d UTC/);
    expect(await toUser('someone else will pick it up', 'the user told about the release')).toMatch(
      /agent-smith .*someone else will pick it up/,
    );
    e.fake.clickButtonLabelled(ticket, 'Claim', bea);
    expect(await stateOnce(/^Claimed by bea/, 'bea claims')).toMatch(/^Claimed by bea-broker at \d\d:\d\d UTC/);

    const ask = e.fake.clickButtonLabelled(ticket, 'Take over', e.agent);
    const confirm = await wait(
      () => e.fake.responsesOf(ask).find((m) => /Take this ticket over from bea-broker\?/.test(m.content)),
      'the confirmation',
    );
    expect(stateLine()).toMatch(/^Claimed by bea-broker/);
    e.fake.clickButtonLabelled(confirm, 'Take over', e.agent);
    expect(await stateOnce(/^Claimed by agent-smith/, 'taken over')).toMatch(
      /^Claimed by agent-smith at \d\d:\d\d UTC/,
    );
    expect(await toUser('now answers you here', 'the user told who answers')).toContain(
      'agent-smith (agent) now answers you here, taking over from bea-broker',
    );

    e.fake.clickButtonLabelled(ticket, 'Close', e.agent);
    expect(await stateOnce(/^Closed/, 'closed')).toMatch(/^Closed by agent-smith at \d\d:\d\d UTC/);
    expect(e.fake.buttons(ticket)).toEqual([]);
    // On Discord the rating prompt is one button that opens the survey (a modal), not five buttons.
    const prompt = await wait(
      () => botMessagesIn(e.fake, threadId).find((m) => e.fake.buttons(m).some((b) => b.label === 'Rate the help')),
      'the survey prompt',
    );
    expect(await buttonsWithout(e, threadId, 'Cancel')).toEqual(expect.arrayContaining(['Rate the help']));
    expect(e.fake.buttons(prompt).map((b) => b.label)).not.toContain('5');
    // A restart between the close and the survey: the button still works, the score lands once.
    await e.restart();
    await refusedTo(
      e.fake.clickButtonLabelled(prompt, 'Rate the help', bob),
      /Only ada, who was helped, may rate this/,
    );
    const opened = e.fake.clickButtonLabelled(prompt, 'Rate the help', e.user);
    const survey = await wait(() => e.fake.modalOf(opened), 'the survey modal');
    // A radio group of the five scores and an optional comment, each in its Label.
    expect(survey.payload.components).toEqual([
      expect.objectContaining({ type: 18, label: 'Your rating', component: expect.objectContaining({ type: 21 }) }),
      expect.objectContaining({ type: 18, component: expect.objectContaining({ type: 4, required: false }) }),
    ]);
    expect(survey.inputs[0]!.options?.map((o) => o.value)).toEqual(['1', '2', '3', '4', '5']);
    e.fake.submitModal({
      customId: survey.custom_id,
      channelId: threadId,
      member: e.user,
      message: prompt,
      values: { comment: 'Quick and kind, thank you.' },
      radios: { rating: '5' },
    });
    expect(await stateOnce(/rated/, 'the score on the ticket')).toMatch(/^Closed by agent-smith .*rated 5\/5/);
    expect(ticket.content).toContain('Satisfaction: 5/5');
    const said = await botSays(e, ticket.id, 'rated the help', 'the rating in the thread');
    expect(said).toContain('ada rated the help 5/5');
    expect(said).toContain('Quick and kind, thank you.');
    // The survey button no longer applies: the prompt thanks the user in its place.
    expect(await labelsWithout(e, prompt, 'Rate the help', 'the survey button gone')).toEqual([]);
    expect(prompt.content).toContain('You rated the help 5/5');
    expect(
      botMessagesIn(e.fake, threadId).filter((m) => /How would you rate|You rated the help/.test(m.content)),
    ).toHaveLength(1);
    const rated = (await e.app.bridge.handoffs.allTickets()).filter((t) => t.rating !== undefined);
    expect(rated.map((t) => [t.rating, t.ratingComment])).toEqual([[5, 'Quick and kind, thank you.']]);
  }, 60_000);

  test('/handoff queue for agents (in the handoff channel) and admins, refused to others; figures in /analytics', async () => {
    const question = 'Which homes are for rent in Denver?';
    const second = await ask(e, question, bob);
    expect(await answerIn(e, second.threadId, question)).toContain('homes for rent in Denver');
    handoffIn(e, second.threadId, 'call me', bob);
    const secondTicket = await wait(
      () => e.fake.channelMessages(e.handoff.id).find((m) => m.id !== ticket.id && m.content.includes('call me')),
      'the second ticket',
    );
    // The ticket's thread and link are stored right after its message is posted.
    const stored = await waitFor(
      async () => (await e.app.bridge.handoffs.queue(tenantFor('discord', e.fake.guildId))).find((t) => t.ticketLink),
      'the second ticket stored with its link',
    );
    expect(stored.ticketLink).toContain(secondTicket.id);

    const refused = handoffIn(e, e.general.id, 'queue', bob);
    const refusal = await textMatching(e, () => responseText(e, refused), /for members of/, 'the refusal');
    expect(refusal).toMatch(/for members of the handoff channel and admins/);
    expect(refusal).not.toMatch(/Handoff queue/);
    // An agent (a member who can view the private handoff channel, through the agents role) gets
    // the queue from any channel, though not an admin.
    const fromGeneral = handoffIn(e, e.general.id, 'queue', e.agent);
    expect(
      await textMatching(e, () => responseText(e, fromGeneral), 'Handoff queue', 'the queue for an agent in #general'),
    ).toMatch(/bob \(Discord\)/);
    // A member let in by a member overwrite (a CHANNEL_UPDATE after the bot started) is an agent
    // too, and is refused again once the overwrite is gone (the update and the command travel the
    // same gateway connection, in that order).
    const view = VIEW_CHANNEL.toString();
    const overwrites = [...(e.handoff.permission_overwrites ?? [])];
    e.fake.setOverwrites(e.handoff.id, [...overwrites, { id: bob.user.id, type: 1, allow: view, deny: '0' }]);
    const letIn = handoffIn(e, e.general.id, 'queue', bob);
    expect(await textMatching(e, () => responseText(e, letIn), /Handoff queue|for members of/, 'bob let in')).toMatch(
      /Handoff queue/,
    );
    e.fake.setOverwrites(e.handoff.id, overwrites);
    const shutOut = handoffIn(e, e.general.id, 'queue', bob);
    expect(
      await textMatching(e, () => responseText(e, shutOut), /Handoff queue|for members of/, 'bob shut out'),
    ).toMatch(/for members of the handoff channel and admins/);
    const queue = handoffIn(e, e.handoff.id, 'queue', e.agent);
    const listed = await textMatching(e, () => responseText(e, queue), 'Handoff queue', 'the queue');
    expect(listed).toMatch(/1 open, 1 waiting/);
    expect(listed).toMatch(/Waiting \d+ s · bob \(Discord\) · https:\/\/discord\.com\/channels\//);
    const admin = handoffIn(e, e.general.id, 'queue', e.admin);
    expect(await textMatching(e, () => responseText(e, admin), /bob \(Discord\)/, 'the queue for an admin')).toMatch(
      /Handoff queue[\s\S]*1 open, 1 waiting/,
    );

    const { text, spec } = await analyticsOf(e);
    expect(text).toContain('Handoffs: 2 opened, 1 claimed, 1 closed, 0 cancelled, 0 timed out');
    expect(text).toContain('Satisfaction: 5/5 average of 1 rating');
    // The claim came five minutes (of the injected clock) after the request, the reply seconds later.
    expect(text).toContain('Time to claim: p50 5 min, p90 5 min');
    expect(text).toContain('Time to first agent reply: p50 5 min, p90 5 min');
    // Those figures are rows of the table (a code block), no longer bars in the PNG.
    expect(text).toMatch(/\n```\n[\s\S]*\nHandoffs: 2 opened[\s\S]*\nSatisfaction: 5\/5 average of 1 rating\n```/);
    // The PNG attached is the period's trend: both tickets opened today (the last day, by the
    // injected clock), none on the 29 days before.
    expect(spec.trend.categories).toHaveLength(30);
    expect(seriesOf(spec, 'Handoffs')).toEqual([...Array<number>(29).fill(0), 2]);

    // An agent may not close a ticket nobody claimed; an admin may.
    await refusedTo(
      e.fake.clickButtonLabelled(secondTicket, 'Close', e.agent),
      /Only an admin may close a ticket nobody has claimed/,
    );
    e.fake.clickButtonLabelled(secondTicket, 'Close', e.admin);
    expect(await textMatching(e, () => firstLine(secondTicket), /^Closed/, 'the admin closed it')).toMatch(
      /^Closed by alan-admin at \d\d:\d\d UTC/,
    );
  }, 90_000);
});
