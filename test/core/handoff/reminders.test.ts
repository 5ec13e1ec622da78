/** Reminders in a waiting ticket's thread (at most 3, one per interval), then the ticket times out. */
import { startCoreHarness, type CoreHarness } from '../../support/core-harness';
import type { Place } from '../../../src/core/surface';
import { waitFor } from '../../support/wait-for';

describe('handoff: reminders and time-out', () => {
  let h: CoreHarness;
  beforeAll(async () => {
    h = await startCoreHarness({ handoffClaimTimeoutMs: 60, start: false });
    h.config.handoffRemindMs = 50;
  });
  afterAll(async () => {
    await h.close();
  });

  it('reminds at most 3 times naming the wait, then times out: both sides told, buttons gone', async () => {
    await h.bridge.command(h.invocation(h.users.alice), 'ask', 'Which homes are for sale in Austin?');
    const thread: Place = h.surface.calls.filter((c) => c.op === 'startThread').at(-1)!.place!;
    await h.bridge.conversations.idle();
    await h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', 'please call me');
    const ticket = h.surface.messagesIn(h.handoffChannel)[0]!;
    const ticketThread: Place = h.surface.calls
      .filter((c) => c.op === 'startThread' && c.place?.channel === h.handoffChannel.channel)
      .at(-1)!.place!;
    const reminders = (): string[] =>
      h.surface
        .messagesIn(ticketThread)
        .map((m) => m.current.text)
        .filter((t) => t.startsWith('Reminder'));

    await waitFor(
      async () => {
        await h.bridge.handoffs.sweepUnclaimed();
        return /^Timed out at \d\d:\d\d UTC: nobody claimed it in /.test(ticket.current.text);
      },
      'the ticket timed out',
      10_000,
    );
    expect(reminders()).toHaveLength(3);
    expect(reminders()[0]).toMatch(/^Reminder \(1 of 3\): Alice has been waiting \d+ s for an agent/);
    expect(reminders()[2]).toMatch(/^Reminder \(3 of 3\)/);
    const [stored] = await h.bridge.handoffs.allTickets();
    expect(stored?.status).toBe('timedout');
    expect(stored?.reminders).toBe(3);
    expect(ticket.current.buttons ?? []).toEqual([]);
    expect(
      h.surface.messagesIn(thread).some((m) => /no agent could pick up your request in time/.test(m.current.text)),
    ).toBe(true);
    expect(
      h.surface.messagesIn(thread).some((m) => m.current.buttons?.some((b) => b.action === 'handoff.cancel')),
    ).toBe(false);
    // Nothing more once timed out.
    await h.bridge.handoffs.sweepUnclaimed();
    expect(reminders()).toHaveLength(3);
    expect(await h.bridge.handoffs.activeTicket(stored!.convId)).toBeUndefined();
  });
});
