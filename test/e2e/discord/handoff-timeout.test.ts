/**
 * Discord tickets that end without a close, end to end: one nobody claims (three reminders naming the
 * wait, then `Timed out`, buttons gone, the user told), one the user cancels after a claim
 * (`Cancelled by` them, listed as claimed in the queue before), both counted in /analytics (text and
 * chart). The clock is injected: with HANDOFF_REMIND_S=300 and HANDOFF_CLAIM_TIMEOUT_S=600 the test moves
 * it five minutes at a time and runs the sweep, so each reminder names the exact wait.
 */
import { tenantFor } from '../../../src/state/tenant-store';
import { analyticsOf, botMessagesIn, responseText, startDiscordE2E, handoffIn } from '../../support/discord-e2e';
import { waitFor } from '../../../fakes/wait-for';
import { seriesOf } from '../../support/png-chart';
import { useStarted } from '../../support/server-setup';
import {
  botSays,
  buttonsWithout,
  firstLine,
  handOffAfterAnswer,
  reminderLine,
  sweepAfter,
  textMatching,
} from '../../support/discord-flows';

describe('Discord: tickets that time out or are cancelled', () => {
  let offset = 0;
  const e = useStarted(() =>
    startDiscordE2E({
      env: { HANDOFF_REMIND_S: '300', HANDOFF_CLAIM_TIMEOUT_S: '600' },
      now: () => Date.now() + offset,
    }),
  );
  /** Five minutes later, as the periodic sweep would see it. */
  const fiveMinutesPass = (): Promise<void> =>
    sweepAfter(
      e,
      (ms) => {
        offset += ms;
      },
      300_000,
    );

  const handOff = (question: string, reason: string, member = e.user) =>
    handOffAfterAnswer(e, question, reason, member);

  test('nobody claims: three reminders, then Timed out on the ticket, the user told', async () => {
    const { threadId, ticket } = await handOff('Any townhouses for sale in Boise?', 'nobody will take this');
    expect(firstLine(ticket)).toMatch(/^Waiting since \d\d:\d\d UTC/);
    // Within the interval nothing is due.
    await e.app.bridge.handoffs.sweepUnclaimed();
    expect(botMessagesIn(e.fake, ticket.id).filter((m) => m.content.startsWith('Reminder'))).toEqual([]);
    for (const [n, wait] of [
      [1, '5 min'],
      [2, '10 min'],
      [3, '15 min'],
    ] as const) {
      await fiveMinutesPass();
      expect(await botSays(e, ticket.id, `Reminder (${n} of 3)`)).toBe(reminderLine(n, 'ada', wait));
    }
    // Past the claim timeout (10 min) the user was told once, while the ticket stays open.
    expect(firstLine(ticket)).toMatch(/^Waiting since \d\d:\d\d UTC/);
    await fiveMinutesPass();
    expect(await textMatching(e, () => firstLine(ticket), /^Timed out/, 'the timed-out state line')).toMatch(
      /^Timed out at \d\d:\d\d UTC: nobody claimed it in 20 min/,
    );
    expect(e.fake.buttons(ticket)).toEqual([]);
    const thread = botMessagesIn(e.fake, ticket.id).map((m) => m.content);
    expect(thread.filter((t) => t.startsWith('Reminder')).map((t) => /^Reminder \((\d) of 3\)/.exec(t)?.[1])).toEqual([
      '1',
      '2',
      '3',
    ]);
    expect(thread).toContain('Nobody claimed this ticket in 20 min: it timed out. The bot answers ada again.');
    expect(await botSays(e, threadId, 'no agent could pick up', 'the user told')).toBe(
      "Sorry, no agent could pick up your request in time. I'm back: ask me anything here, or use /handoff to try again later.",
    );
    expect(await buttonsWithout(e, threadId, 'Cancel')).not.toContain('Claim');
  }, 60_000);

  test('claimed, listed as claimed in the queue, then cancelled by the user: Cancelled by them on the ticket; the figures', async () => {
    const bob = e.fake.addMember('bob', []);
    const { threadId, ticket } = await handOff('Which homes are for rent in Denver?', 'call me please', bob);
    e.fake.clickButtonLabelled(ticket, 'Claim', e.agent);
    expect(await textMatching(e, () => firstLine(ticket), /^Claimed/, 'claimed')).toMatch(
      /^Claimed by agent-smith at \d\d:\d\d UTC/,
    );
    const stored = await waitFor(
      async () => (await e.app.bridge.handoffs.queue(tenantFor('discord', e.fake.guildId))).find((t) => t.ticketLink),
      'the ticket stored with its link',
      15_000,
      e.fake.changes,
    );
    expect(stored.ticketLink).toContain(ticket.id);
    const queue = handoffIn(e, e.handoff.id, 'queue', e.agent);
    const listed = await textMatching(e, () => responseText(e, queue), 'Handoff queue', 'the queue');
    expect(listed).toMatch(/1 open, 0 waiting/);
    expect(listed).toMatch(
      new RegExp(
        `Claimed by agent-smith, waited \\d+ s · bob \\(Discord\\) · https://discord\\.com/channels/${e.fake.guildId}/${e.handoff.id}/${ticket.id}`,
      ),
    );

    const notice = botMessagesIn(e.fake, threadId).find((m) => e.fake.buttons(m).some((b) => b.label === 'Cancel'))!;
    e.fake.clickButtonLabelled(notice, 'Cancel', bob);
    expect(await textMatching(e, () => firstLine(ticket), /^Cancelled/, 'the cancelled state line')).toMatch(
      /^Cancelled by bob at \d\d:\d\d UTC/,
    );
    expect(e.fake.buttons(ticket)).toEqual([]);
    expect(await buttonsWithout(e, threadId, 'Cancel')).not.toContain('Cancel');

    const { text, spec } = await analyticsOf(e);
    expect(text).toContain('Handoffs: 2 opened, 1 claimed, 0 closed, 1 cancelled, 1 timed out');
    // The trend in the PNG: both tickets opened on the last day of the period (today).
    expect(seriesOf(spec, 'Handoffs')).toEqual([...Array<number>(29).fill(0), 2]);
  }, 60_000);
});
