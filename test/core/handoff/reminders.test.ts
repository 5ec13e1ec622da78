/** Reminders in a waiting ticket's thread (at most 3, one per interval), then the ticket times out. */
import { startCoreHarness, type CoreHarness } from '../../support/core-harness';
import type { Place } from '../../../src/core/surface';
import { ticketConv } from '../../../src/core/handoff/model';
import { waitFor } from '../../../fakes/wait-for';

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
    expect(await h.bridge.handoffs.activeTicket(ticketConv(stored!))).toBeUndefined();
  });
});

/**
 * Spacing on an injected clock: the sweep is driven directly (no timers run), and `ctx.now` is a
 * number the test moves, so "one per interval" and "never more than 3" are checked exactly.
 */
describe('handoff: reminder spacing on an injected clock', () => {
  const REMIND_MS = 300_000; // HANDOFF_REMIND_S's default, 300 s
  let h: CoreHarness;
  beforeAll(async () => {
    // A long claim timeout: the ticket times out only at 2 × 30 min, far after the third reminder,
    // so the sweeps between the third reminder and the time-out show that no fourth comes.
    h = await startCoreHarness({ handoffClaimTimeoutMs: 30 * 60_000, start: false });
    h.config.handoffRemindMs = REMIND_MS;
  });
  afterAll(async () => {
    await h.close();
  });

  it('a waiting ticket gets a reminder after each interval, at most one per interval and never more than 3', async () => {
    await h.bridge.command(h.invocation(h.users.alice), 'ask', 'Which homes are for sale in Austin?');
    const thread: Place = h.surface.calls.filter((c) => c.op === 'startThread').at(-1)!.place!;
    await h.bridge.conversations.idle();

    let clock = Date.now();
    h.ctx.now = () => clock;
    const opened = clock;
    await h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', 'please call me');
    const ticketThread: Place = h.surface.calls
      .filter((c) => c.op === 'startThread' && c.place?.channel === h.handoffChannel.channel)
      .at(-1)!.place!;
    const reminders = (): string[] =>
      h.surface
        .messagesIn(ticketThread)
        .map((m) => m.current.text)
        .filter((t) => t.startsWith('Reminder'));
    /** Moves the clock to `opened + atMs` and runs the sweep `times` times there. */
    const sweepAt = async (atMs: number, times = 3): Promise<number> => {
      clock = opened + atMs;
      for (let i = 0; i < times; i++) await h.bridge.handoffs.sweepUnclaimed();
      return reminders().length;
    };

    // Before the first interval ends: nothing, however often the sweep runs.
    expect(await sweepAt(0)).toBe(0);
    expect(await sweepAt(REMIND_MS - 1)).toBe(0);
    // At the interval: exactly one, even with repeated sweeps at that moment.
    expect(await sweepAt(REMIND_MS)).toBe(1);
    expect(reminders()[0]).toBe(
      'Reminder (1 of 3): Alice has been waiting 5 min for an agent. Press Claim on the ticket to take it.',
    );
    // The next one counts from the last reminder, not from the wait's start.
    expect(await sweepAt(REMIND_MS + REMIND_MS / 2)).toBe(1);
    expect(await sweepAt(2 * REMIND_MS - 1)).toBe(1);
    expect(await sweepAt(2 * REMIND_MS)).toBe(2);
    expect(reminders()[1]).toMatch(/^Reminder \(2 of 3\): Alice has been waiting 10 min for an agent/);
    // A late sweep (the interval passed twice over) still posts only one.
    expect(await sweepAt(4 * REMIND_MS + 10_000)).toBe(3);
    expect(reminders()[2]).toMatch(/^Reminder \(3 of 3\): Alice has been waiting 20 min for an agent/);
    // After the third: never a fourth, at every later interval, while the ticket still waits.
    for (let n = 5; n < 12; n++) expect(await sweepAt(n * REMIND_MS + 10_000)).toBe(3);
    const [stored] = await h.bridge.handoffs.allTickets();
    expect(stored?.status).toBe('open');
    expect(stored?.reminders).toBe(3);
    // Each stored reminder time is the sweep that posted it.
    expect(stored?.lastRemindAt).toBe(opened + 4 * REMIND_MS + 10_000);
    // It times out only at twice the claim timeout, and still no fourth reminder.
    expect(await sweepAt(60 * 60_000)).toBe(3);
    expect((await h.bridge.handoffs.allTickets())[0]?.status).toBe('timedout');
  });
});
