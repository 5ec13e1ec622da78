/**
 * A real-estate team runs a lead through a Slack handoff, end to end: who may press what, the state
 * line through the ticket's whole life, a reminder, the lead summary, internal notes, release and
 * take-over, the satisfaction rating, restarts between claim and first reply and between close and
 * rating, /handoff queue, the App Home view and the figures in /analytics. The default reminder
 * interval (5 min) on an injected clock: the test moves it on and calls the sweep.
 */
import { startRestartableSlackE2E, type RestartableSlackE2E } from '../../support/handoff-e2e';
import type { FakeMessage } from '../../../fakes/fake-slack';
import { button, buttons } from '../../../fakes/slack-blocks';
import { ADMIN, HANDOFF_CHANNEL, rootFor } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import {
  analyticsShown,
  askAnswered,
  becomes,
  ephemeralTo as ephemeralIn,
  textMatching,
} from '../../support/slack-flows';
import { useStarted } from '../../support/server-setup';

const USERS = 'C0LEADS';
const ADA = 'U0USER1';
const GRACE = 'U0USER2';
const SMITH = 'U0AGENT';
const BEA = 'U0AGENT2';

let tsSeq = 0;
const nextTs = (): string => `${Math.floor(Date.now() / 1000)}.9${String(++tsSeq).padStart(5, '0')}`;

describe('Slack: a lead through a handoff', () => {
  let offset = 0;
  const e: RestartableSlackE2E = useStarted(async () => {
    const started = await startRestartableSlackE2E({}, { [BEA]: 'Bea Broker' }, () => Date.now() + offset);
    started.fake.channelNames[USERS] = 'house-hunting';
    started.fake.channelMembers[HANDOFF_CHANNEL] = [SMITH, BEA];
    return started;
  });
  let root: FakeMessage;
  let ticket: FakeMessage;

  const ticketNow = (): FakeMessage => e.fake.message(HANDOFF_CHANNEL, ticket.ts)!;
  const stateLine = (): string => ticketNow().text.split('\n')[0]!;
  const userThread = (): string[] => e.fake.replies(USERS, root.ts).map((m) => m.text);
  const ticketThread = (): string[] => e.fake.replies(HANDOFF_CHANNEL, ticket.ts).map((m) => m.text);
  const ephemeralTo = (user: string, re: RegExp, after: number) => ephemeralIn(e.fake, user, re, after);
  const agentSays = (user: string, text: string) =>
    e.driver.event({
      type: 'message',
      channel: HANDOFF_CHANNEL,
      channel_type: 'channel',
      user,
      text,
      ts: nextTs(),
      thread_ts: ticket.ts,
    });
  const userSays = (text: string) =>
    e.driver.event({
      type: 'message',
      channel: USERS,
      channel_type: 'channel',
      user: ADA,
      text,
      ts: nextTs(),
      thread_ts: root.ts,
    });
  const click = (msg: FakeMessage, label: string, user: string) =>
    e.driver.click(
      button(msg, label)!,
      { channel: msg.channel, messageTs: msg.ts, ...(msg.thread_ts ? { threadTs: msg.thread_ts } : {}) },
      { user },
    );

  test('the asker (not someone else) asks for a human; the ticket reads well and carries the lead', async () => {
    const question = 'I am looking for a 3 bedroom house in Austin, my budget is up to $650,000';
    await e.driver.command('/ask', question, { user: ADA, channel: USERS });
    root = await waitFor(() => rootFor(e.fake, USERS, question), 'the conversation root');
    const answered = await waitFor(
      () => e.fake.replies(USERS, root.ts).find((m) => button(m, 'Talk to a human')),
      'the answer with Talk to a human',
    );
    await userSays(
      'Please write to ada.l@example.com or call 512-555-0143. I like MLS ATX240131 and 1204 Barton Springs Rd.',
    );
    const answers = await waitFor(() => {
      const withButton = e.fake.replies(USERS, root.ts).filter((m) => button(m, 'Talk to a human'));
      return withButton.length >= 2 && withButton;
    }, 'the second answer');
    expect(answers[1]).toMatchObject({ user: e.fake.botUserId, thread_ts: root.ts });

    // A listing card Ada opened counts among the listings of her lead.
    await e.driver.command('/listing', 'show mls:ATX240000', { user: ADA, channel: USERS });
    const card = await waitFor(
      () => e.fake.channelMessages(USERS).find((m) => JSON.stringify(m.blocks).includes('ATX240000')),
      'the listing card',
    );
    expect(card).toMatchObject({ channel: USERS, user: e.fake.botUserId });

    // Someone else pressing "Talk to a human" under Ada's answer is told who may; nothing opens.
    const eph = e.fake.ephemerals.length;
    await click(answered, 'Talk to a human', GRACE);
    const refusal = await ephemeralTo(GRACE, /Only the person who asked/, eph);
    expect(refusal.text).toMatch(/admin/);
    expect(e.fake.channelMessages(HANDOFF_CHANNEL)).toHaveLength(0);

    const answerTexts = e.fake
      .replies(USERS, root.ts)
      .filter((m) => button(m, 'Talk to a human'))
      .map((m) => m.text);
    await click(answered, 'Talk to a human', ADA);
    ticket = await waitFor(() => e.fake.channelMessages(HANDOFF_CHANNEL).find((m) => button(m, 'Claim')), 'the ticket');
    // "Talk to a human" no longer applies: gone from every answer in the thread, their words unchanged.
    const after = await waitFor(() => {
      const msgs = e.fake.replies(USERS, root.ts);
      return !msgs.some((m) => button(m, 'Talk to a human')) && msgs.map((m) => m.text);
    }, 'Talk to a human removed');
    for (const t of answerTexts) expect(after).toContain(t);
    const text = ticket.text;
    expect(text.split('\n')[0]).toMatch(/^Waiting since \d\d:\d\d UTC/);
    expect(text).toContain('Ada Lovelace');
    expect(text).toContain('#house-hunting');
    expect(text).toMatch(new RegExp(`https://fake\\.slack\\.test/archives/${USERS}/p${root.ts.replace('.', '')}`));
    expect(text).not.toContain(e.fake.team);
    expect(text).toContain('ada.l@example.com');
    expect(text).toContain('512-555-0143');
    expect(text).toContain('City: Austin');
    expect(text).toContain('Budget: $650,000');
    expect(text).toContain('Bedrooms: 3');
    expect(text).toContain('MLS ATX240131');
    expect(text).toContain('1204 Barton Springs Rd');
    expect(text).toContain('MLS ATX240000');
  }, 60_000);

  test('a waiting ticket gets a reminder naming how long the user waited, and the state line follows', async () => {
    await e.app.bridge.handoffs.sweepUnclaimed();
    expect(ticketThread().filter((t) => t.startsWith('Reminder'))).toEqual([]);
    offset += 300_000;
    await e.app.bridge.handoffs.sweepUnclaimed();
    const reminder = await textMatching(ticketThread, /^Reminder/, 'the first reminder');
    expect(reminder).toMatch(/^Reminder \(1 of 3\): Ada Lovelace has been waiting 5 min for an agent\. Press Claim/);
    expect(await becomes(stateLine, /\(5 min so far\)/, 'the state line showing the wait')).toMatch(
      /^Waiting since \d\d:\d\d UTC \(5 min so far\)/,
    );
  }, 30_000);

  test('claim by a channel member; Close by another agent and Cancel by another user are refused; a restart before the first reply loses nothing', async () => {
    await click(ticketNow(), 'Claim', SMITH);
    expect(await becomes(stateLine, /^Claimed/, 'the claimed state line')).toMatch(
      /^Claimed by Agent Smith at \d\d:\d\d UTC, 5 min after the request/,
    );
    expect(buttons(ticketNow()).map((b) => b.text.text)).toEqual(['Close', 'Release', 'Take over']);
    expect(await textMatching(userThread, /has joined/, 'the user told who joined')).toContain(
      'Agent Smith (agent) has joined',
    );

    let eph = e.fake.ephemerals.length;
    await click(ticketNow(), 'Close', BEA);
    expect((await ephemeralTo(BEA, /Only Agent Smith .* or an admin may close/, eph)).channel).toBe(HANDOFF_CHANNEL);
    const notice = e.fake.replies(USERS, root.ts).find((m) => button(m, 'Cancel'))!;
    eph = e.fake.ephemerals.length;
    await click(notice, 'Cancel', GRACE);
    const notYours = await ephemeralTo(GRACE, /Only Ada Lovelace, who asked for a human, or an admin may cancel/, eph);
    // Told in Ada's thread, where she pressed Cancel.
    expect(notYours).toMatchObject({ channel: USERS, thread_ts: root.ts });
    expect(stateLine()).toMatch(/^Claimed by Agent Smith/);

    await e.restart();
    await agentSays(SMITH, 'Hello Ada, I can show you MLS ATX240131 on Saturday.');
    expect(await textMatching(userThread, /Hello Ada/, 'the first agent reply after the restart')).toContain(
      'Hello Ada, I can show you MLS ATX240131 on Saturday.',
    );
    expect(userThread().filter((t) => t.includes('Hello Ada, I can show you'))).toHaveLength(1);
    // No reminder once claimed (one already on its way at the claim may land next to it), at most 3 in all.
    const thread = ticketThread();
    const claimedAt = thread.findIndex((t) => t.startsWith('Agent Smith claimed this ticket'));
    expect(thread.slice(claimedAt + 2).filter((t) => t.startsWith('Reminder'))).toEqual([]);
    expect(thread.filter((t) => t.startsWith('Reminder')).length).toBeLessThanOrEqual(3);
  }, 60_000);

  test('internal notes: the claimer\'s "note:" and anyone else\'s messages stay with the agents, marked', async () => {
    await agentSays(SMITH, 'NOTE: she is pre-approved, keep her warm');
    await agentSays(BEA, 'I sold her neighbour a house last year');
    const notes = await waitFor(() => {
      const marked = ticketThread().filter((t) => t.startsWith('Internal note from'));
      return marked.length >= 2 && marked;
    }, 'both notes marked');
    expect(notes.find((t) => t.startsWith('Internal note from Agent Smith'))).toMatch(/not sent to Ada Lovelace/);
    expect(notes.find((t) => t.startsWith('Internal note from Bea Broker'))).toMatch(
      /Only Agent Smith's messages reach them/,
    );
    await userSays('Saturday works for me');
    expect(await textMatching(ticketThread, /Saturday works/, 'the user message in the ticket thread')).toContain(
      'Saturday works for me',
    );
    const seen = userThread().join('\n');
    expect(seen).not.toContain('pre-approved');
    expect(seen).not.toContain('neighbour');
  }, 30_000);

  test('release by the claimer (not by another agent); take over after confirming', async () => {
    let eph = e.fake.ephemerals.length;
    await click(ticketNow(), 'Release', BEA);
    expect((await ephemeralTo(BEA, /may release it/, eph)).text).toBe(
      'Only Agent Smith, who claimed this ticket, may release it.',
    );
    await click(ticketNow(), 'Release', SMITH);
    expect(await becomes(stateLine, /^Waiting/, 'the ticket waiting again')).toMatch(/^Waiting since \d\d:\d\d UTC/);
    expect(await textMatching(userThread, /handed your request back/, 'the user told about the release')).toMatch(
      /handed your request back to the team: someone else will pick it up/,
    );

    await click(ticketNow(), 'Claim', BEA);
    expect(await becomes(stateLine, /^Claimed by Bea/, 'Bea claims')).toMatch(
      /^Claimed by Bea Broker at \d\d:\d\d UTC/,
    );
    eph = e.fake.ephemerals.length;
    await click(ticketNow(), 'Take over', SMITH);
    const confirm = await ephemeralTo(SMITH, /Take this ticket over from Bea Broker\?/, eph);
    expect(stateLine()).toMatch(/^Claimed by Bea Broker/);
    const confirmButton = (
      confirm.blocks as Array<{
        type?: string;
        elements?: Array<{ action_id: string; value?: string; text: { text: string } }>;
      }>
    )
      .flatMap((b) => (b.type === 'actions' ? (b.elements ?? []) : []))
      .find((b) => b.text.text === 'Take over')!;
    await e.driver.click(
      confirmButton,
      { channel: HANDOFF_CHANNEL, messageTs: ticket.ts, threadTs: ticket.ts },
      { user: SMITH },
    );
    expect(await becomes(stateLine, /^Claimed by Agent Smith/, 'Agent Smith holds it again')).toMatch(
      /^Claimed by Agent Smith at \d\d:\d\d UTC/,
    );
    expect(await textMatching(userThread, /now answers you here/, 'the user told who answers now')).toContain(
      'Agent Smith (agent) now answers you here, taking over from Bea Broker',
    );
    // Bea's messages no longer reach the user: each is marked as a note, kept with the agents.
    const beaNotes = () => ticketThread().filter((t) => t.startsWith('Internal note from Bea Broker'));
    const notesBefore = beaNotes().length;
    await agentSays(BEA, 'Bea here, anything else?');
    const marked = await waitFor(() => beaNotes().length > notesBefore && beaNotes(), 'Bea kept in the thread');
    expect(marked.at(-1)).toMatch(/^Internal note from Bea Broker[\s\S]*Only Agent Smith's messages reach them/);
    expect(userThread().join('\n')).not.toContain('Bea here');
  }, 60_000);

  test('close asks the user for a rating; after a restart only the user can rate, once; the ticket shows the score', async () => {
    await click(ticketNow(), 'Close', SMITH);
    expect(await becomes(stateLine, /^Closed/, 'the closed state line')).toMatch(
      /^Closed by Agent Smith at \d\d:\d\d UTC/,
    );
    expect(buttons(ticketNow())).toEqual([]);
    const prompt = await waitFor(() => e.fake.replies(USERS, root.ts).find((m) => button(m, '5')), 'the rating prompt');
    expect(buttons(prompt).map((b) => b.text.text)).toEqual(['1', '2', '3', '4', '5']);
    // The Cancel button no longer applies: gone from the user's thread.
    const withoutCancel = await waitFor(() => {
      const msgs = e.fake.replies(USERS, root.ts);
      return !msgs.some((m) => button(m, 'Cancel')) && msgs;
    }, 'the Cancel button gone');
    // Only Cancel went: the rating prompt keeps its buttons.
    expect(buttons(withoutCancel.find((m) => m.ts === prompt.ts)!).map((b) => b.text.text)).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
    ]);

    await e.restart();
    // A late second press (kept from before the buttons went) is refused.
    const one = button(prompt, '1')!;
    const eph = e.fake.ephemerals.length;
    await click(prompt, '5', GRACE);
    // Told in Ada's thread, where the prompt is.
    expect(await ephemeralTo(GRACE, /Only Ada Lovelace, who was helped, may rate this/, eph)).toMatchObject({
      channel: USERS,
      thread_ts: root.ts,
    });
    await click(prompt, '4', ADA);
    const thanked = await waitFor(() => {
      const m = e.fake.message(USERS, prompt.ts)!;
      return m.text.includes('You rated') && m;
    }, 'the thanks in place of the buttons');
    expect(thanked.text).toContain('You rated the help 4/5');
    expect(buttons(thanked)).toEqual([]);
    const scored = await becomes(() => ticketNow().text, /Satisfaction:/, 'the score on the ticket');
    expect(scored).toContain('Satisfaction: 4/5');
    expect(stateLine()).toMatch(/^Closed by Agent Smith .*rated 4\/5/);
    const eph2 = e.fake.ephemerals.length;
    await e.driver.click(one, { channel: USERS, messageTs: prompt.ts, threadTs: root.ts }, { user: ADA });
    expect((await ephemeralTo(ADA, /already rated/, eph2)).text).toMatch(/already rated the help 4\/5/);
    expect(stateLine()).toMatch(/rated 4\/5/);
  }, 60_000);

  test('/handoff queue for agents and admins; the App Home view for channel members', async () => {
    const question = 'Any condos for rent in Miami?';
    const { root: graceRoot, answer: graceAnswer } = await askAnswered(e, GRACE, USERS, question);
    expect(graceAnswer).toMatchObject({ user: e.fake.botUserId, thread_ts: graceRoot.ts });
    await e.driver.command('/handoff', 'I want a viewing', { user: GRACE, channel: USERS });
    const second = await waitFor(
      () => e.fake.channelMessages(HANDOFF_CHANNEL).find((m) => m.ts !== ticket.ts && button(m, 'Claim')),
      'the second ticket',
    );

    let eph = e.fake.ephemerals.length;
    await e.driver.command('/handoff', 'queue', { user: GRACE, channel: USERS });
    const refused = await ephemeralTo(GRACE, /handoff queue is for members of the handoff channel and admins/, eph);
    // The refusal shows nothing of the queue.
    expect(refused.text).not.toMatch(/Waiting|Ada Lovelace|Grace Hopper/);
    eph = e.fake.ephemerals.length;
    await e.driver.command('/handoff', 'queue', { user: SMITH, channel: HANDOFF_CHANNEL });
    const queue = await ephemeralTo(SMITH, /Handoff queue/, eph);
    expect(queue.text).toMatch(/1 open, 1 waiting/);
    expect(queue.text).toMatch(/Waiting \d+ s · Grace Hopper \(Slack\)/);
    expect(queue.text).toContain(`https://fake.slack.test/archives/${HANDOFF_CHANNEL}/p${second.ts.replace('.', '')}`);
    expect(queue.text).not.toContain('Ada Lovelace');
    eph = e.fake.ephemerals.length;
    await e.driver.command('/handoff', 'queue', { user: ADMIN, channel: USERS });
    // An admin outside the handoff channel sees the same queue.
    const adminQueue = await ephemeralTo(ADMIN, /Grace Hopper/, eph);
    expect(adminQueue.channel).toBe(USERS);
    expect(adminQueue.text).toMatch(/^\*Handoff queue\*: 1 open, 1 waiting\n.*Grace Hopper \(Slack\)/);

    await e.driver.event({ type: 'app_home_opened', user: BEA, channel: 'D0BEA', tab: 'home' });
    const home = await waitFor(() => e.fake.homeViews.find((v) => v.user === BEA), 'Bea’s App Home');
    expect(JSON.stringify(home.view.blocks)).toContain('Grace Hopper');
    await e.driver.event({ type: 'app_home_opened', user: GRACE, channel: 'D0GRACE', tab: 'home' });
    const outsider = await waitFor(() => e.fake.homeViews.find((v) => v.user === GRACE), 'Grace’s App Home');
    expect(JSON.stringify(outsider.view.blocks)).not.toContain('Grace Hopper');
    expect(JSON.stringify(outsider.view.blocks)).toMatch(/members of the handoff channel/);
    // An admin who is not in the handoff channel sees the queue too.
    await e.driver.event({ type: 'app_home_opened', user: ADMIN, channel: 'D0ADMIN', tab: 'home' });
    const admin = await waitFor(() => e.fake.homeViews.find((v) => v.user === ADMIN), 'the admin’s App Home');
    expect(JSON.stringify(admin.view.blocks)).toMatch(/Waiting \d+ s · Grace Hopper \(Slack\)/);

    // Grace cancels hers (the asker may): it counts as cancelled in the figures.
    await e.driver.command('/handoff', 'cancel', { user: GRACE, channel: USERS });
    const cancelled = await becomes(
      () => e.fake.message(HANDOFF_CHANNEL, second.ts)?.text,
      /^Cancelled/,
      'the second ticket cancelled',
    );
    expect(cancelled).toMatch(/^Cancelled by Grace Hopper/);
    expect(buttons(e.fake.message(HANDOFF_CHANNEL, second.ts)!)).toEqual([]);
  }, 60_000);

  test('/analytics adds the period’s handoff figures, values checked', async () => {
    await e.driver.command('/analytics', '', { user: ADMIN, channel: 'C0FIGURES' });
    const shown = await waitFor(
      () => e.fake.channelMessages('C0FIGURES').find((m) => m.text.includes('Handoffs:')),
      'the analytics text',
    );
    expect(shown.text).toContain('Handoffs: 2 opened, 1 claimed, 1 closed, 1 cancelled, 0 timed out');
    // Claimed after the 5 min the clock moved on (and a first reply in the same minute).
    expect(shown.text).toContain('Time to claim: p50 5 min, p90 5 min');
    expect(shown.text).toContain('Time to first agent reply: p50 5 min, p90 5 min');
    expect(shown.text).toContain('Satisfaction: 4/5 average of 1 rating');
    // The table carries the same figures as the text; the chart, the period's trend.
    const figures = await analyticsShown(e.fake, 'C0FIGURES');
    expect(figures.rows).toContainEqual(['Handoffs', '2 opened, 1 claimed, 1 closed, 1 cancelled, 0 timed out']);
    expect(figures.rows).toContainEqual(['Satisfaction', '4/5 average of 1 rating']);
    expect(figures.rows).toContainEqual(['Time to claim', 'p50 5 min, p90 5 min']);
    const handoffs = figures.chart.chart.series.find((x) => x.name === 'Handoffs')!;
    expect(handoffs.data.reduce((n, p) => n + p.value, 0)).toBe(2);
  }, 60_000);

  test('a claim and a close whose ticket update fails still tell both sides', async () => {
    const question = 'Any houses for sale in Denver?';
    const { root: third, answer: thirdAnswer } = await askAnswered(e, ADA, USERS, question);
    expect(thirdAnswer).toMatchObject({ user: e.fake.botUserId, thread_ts: third.ts });
    await e.driver.command('/handoff', 'urgent', { user: ADA, channel: USERS });
    const t3 = await waitFor(
      () => e.fake.channelMessages(HANDOFF_CHANNEL).find((m) => m.text.includes('urgent') && button(m, 'Claim')),
      'the third ticket',
    );
    const claimButton = button(t3, 'Claim')!;
    const closeButton = button(t3, 'Close')!;

    e.fake.force429('chat.update', 100, 1);
    await e.driver.click(claimButton, { channel: HANDOFF_CHANNEL, messageTs: t3.ts }, { user: SMITH });
    const thirdUser = () => e.fake.replies(USERS, third.ts).map((m) => m.text);
    const thirdTicket = () => e.fake.replies(HANDOFF_CHANNEL, t3.ts).map((m) => m.text);
    expect(await textMatching(thirdUser, /has joined/, 'the user told of the claim')).toContain(
      'Agent Smith (agent) has joined',
    );
    expect(await textMatching(thirdTicket, /claimed this ticket/, 'the thread told of the claim')).toMatch(
      /^Agent Smith claimed this ticket/,
    );
    // The ticket message could not be updated: it still shows the state before.
    expect(e.fake.message(HANDOFF_CHANNEL, t3.ts)!.text).toMatch(/^Waiting since/);
    // The queue lists a claimed ticket with its state, its user, the wait to the claim and its link.
    const eph = e.fake.ephemerals.length;
    await e.driver.command('/handoff', 'queue', { user: SMITH, channel: HANDOFF_CHANNEL });
    const queue = await ephemeralTo(SMITH, /Handoff queue/, eph);
    expect(queue.text).toMatch(/1 open, 0 waiting/);
    expect(queue.text).toMatch(
      new RegExp(
        `Claimed by Agent Smith, waited \\d+ s · Ada Lovelace \\(Slack\\) · https://fake\\.slack\\.test/archives/${HANDOFF_CHANNEL}/p${t3.ts.replace('.', '')}`,
      ),
    );
    await e.driver.click(closeButton, { channel: HANDOFF_CHANNEL, messageTs: t3.ts }, { user: SMITH });
    expect(await textMatching(thirdUser, /closed the handoff/, 'the user told of the close')).toContain(
      'Agent Smith closed the handoff',
    );
    expect(await textMatching(thirdTicket, /closed this ticket/, 'the thread told of the close')).toMatch(
      /^Agent Smith closed this ticket/,
    );
    e.fake.force429('chat.update', 0, 1);
  }, 60_000);
});
