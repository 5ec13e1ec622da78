/**
 * Discord tickets that end without a close, end to end: one nobody claims (three reminders naming the
 * wait, then `Timed out`, buttons gone, the user told), one the user cancels after a claim
 * (`Cancelled by` them, listed as claimed in the queue before), both counted in /analytics (text and
 * chart). HANDOFF_REMIND_S and HANDOFF_CLAIM_TIMEOUT_S of 1 s time a ticket out about four seconds in.
 */
import {
  analyticsOf,
  ask,
  botMessagesIn,
  responseText,
  startDiscordE2E,
  waitForAnswer,
  handoffIn,
} from '../../support/discord-e2e';
import { waitFor } from '../../../fakes/wait-for';
import { panelOf } from '../../support/png-chart';
import { useStarted } from '../../support/server-setup';

describe('Discord: tickets that time out or are cancelled', () => {
  const e = useStarted(() => startDiscordE2E({ env: { HANDOFF_REMIND_S: '1', HANDOFF_CLAIM_TIMEOUT_S: '1' } }));

  const handOff = async (question: string, reason: string, member = e.user) => {
    const { threadId } = await ask(e, question, member);
    await waitForAnswer(e, threadId, question);
    e.fake.slashCommand({
      name: 'handoff',
      channelId: threadId,
      member,
      options: [{ name: 'reason', type: 3, value: reason }],
    });
    const ticket = await waitFor(
      () => e.fake.channelMessages(e.handoff.id).find((m) => m.content.includes(reason)),
      'the ticket',
      15_000,
      e.fake.changes,
    );
    return { threadId, ticket };
  };

  test('nobody claims: three reminders, then Timed out on the ticket, the user told', async () => {
    const { threadId, ticket } = await handOff('Any townhouses for sale in Boise?', 'nobody will take this');
    expect(ticket.content.split('\n')[0]).toMatch(/^Waiting since \d\d:\d\d UTC/);
    await waitFor(
      () => /^Timed out at \d\d:\d\d UTC: nobody claimed it in \d+ s/.test(ticket.content.split('\n')[0]!),
      'the timed-out state line',
      20_000,
      e.fake.changes,
    );
    expect(e.fake.buttons(ticket)).toEqual([]);
    const thread = botMessagesIn(e.fake, ticket.id).map((m) => m.content);
    expect(
      thread
        .filter((t) => t.startsWith('Reminder'))
        .map((t) => /^Reminder \((\d) of 3\): ada has been waiting \d+ s/.exec(t)?.[1]),
    ).toEqual(['1', '2', '3']);
    expect(thread.find((t) => /Nobody claimed this ticket in \d+ s: it timed out/.test(t))).toBeDefined();
    await waitFor(
      () => botMessagesIn(e.fake, threadId).find((m) => /no agent could pick up your request in time/.test(m.content)),
      'the user told',
      15_000,
      e.fake.changes,
    );
    await waitFor(
      () => !botMessagesIn(e.fake, threadId).some((m) => e.fake.buttons(m).some((b) => b.label === 'Cancel')),
      'the Cancel button gone',
      15_000,
      e.fake.changes,
    );
  }, 60_000);

  test('claimed, listed as claimed in the queue, then cancelled by the user: Cancelled by them on the ticket; the figures', async () => {
    const bob = e.fake.addMember('bob', []);
    const { threadId, ticket } = await handOff('Which homes are for rent in Denver?', 'call me please', bob);
    e.fake.clickButtonLabelled(ticket, 'Claim', e.agent);
    await waitFor(() => /^Claimed by agent-smith/.test(ticket.content), 'claimed', 15_000, e.fake.changes);
    await waitFor(
      async () => (await e.app.bridge.handoffs.queue()).some((t) => t.ticketLink),
      'the ticket stored with its link',
      15_000,
      e.fake.changes,
    );
    const queue = handoffIn(e, e.handoff.id, 'queue', e.agent);
    await waitFor(() => /Handoff queue/.test(responseText(e, queue)), 'the queue', 15_000, e.fake.changes);
    expect(responseText(e, queue)).toMatch(/1 open, 0 waiting/);
    expect(responseText(e, queue)).toMatch(
      new RegExp(
        `Claimed by agent-smith, waited \\d+ s · bob \\(Discord\\) · https://discord\\.com/channels/${e.fake.guildId}/${e.handoff.id}/${ticket.id}`,
      ),
    );

    const notice = botMessagesIn(e.fake, threadId).find((m) => e.fake.buttons(m).some((b) => b.label === 'Cancel'))!;
    e.fake.clickButtonLabelled(notice, 'Cancel', bob);
    await waitFor(
      () => /^Cancelled by bob at \d\d:\d\d UTC/.test(ticket.content.split('\n')[0]!),
      'the cancelled state line',
      15_000,
      e.fake.changes,
    );
    expect(e.fake.buttons(ticket)).toEqual([]);
    await waitFor(
      () => !botMessagesIn(e.fake, threadId).some((m) => e.fake.buttons(m).some((b) => b.label === 'Cancel')),
      'the Cancel button gone',
      15_000,
      e.fake.changes,
    );

    const { text, spec } = await analyticsOf(e);
    expect(text).toContain('Handoffs: 2 opened, 1 claimed, 0 closed, 1 cancelled, 1 timed out');
    expect(panelOf(spec, 'Handoffs').values).toEqual([2, 1, 0, 1, 1]);
  }, 60_000);
});
