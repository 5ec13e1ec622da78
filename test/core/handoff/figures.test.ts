/** The handoff figures of a period, and the table rows /analytics shows them as: values checked. */
import { figuresTable } from '../../../src/core/commands/analytics';
import { computeHandoffFigures, handoffFiguresText } from '../../../src/core/handoff/figures';
import type { Ticket } from '../../../src/core/handoff/model';

const DAY = Date.parse('2026-11-20T00:00:00.000Z');
const MIN = 60_000;
const place = { surface: 'slack' as const, workspace: 'W1', channel: 'C1', thread: '1.1' };
const user = { id: 'U1', name: 'Ada', isAdmin: false };
const agent = { id: 'A1', name: 'Smith', isAdmin: false };

let seq = 0;
function ticket(at: number, more: Partial<Ticket>): Ticket {
  return {
    id: `t${++seq}`,
    convId: `c${seq}`,
    status: 'open',
    user,
    userPlace: place,
    reason: 'r',
    createdAt: at,
    ...more,
  };
}

/** Ten tickets in the day: claim waits 1..8 min, replies 2 min after each claim, four ratings. */
function dayOfTickets(): Ticket[] {
  const tickets: Ticket[] = [];
  for (let i = 1; i <= 8; i++) {
    const at = DAY + i * 60 * MIN;
    tickets.push(
      ticket(at, {
        status: i <= 5 ? 'closed' : 'claimed',
        claimedBy: agent,
        firstClaimedAt: at + i * MIN,
        firstReplyAt: at + (i + 2) * MIN,
        ...(i <= 5 ? { endedBy: agent, endedAt: at + 30 * MIN } : {}),
        ...(i <= 4 ? { rating: i === 1 ? 2 : 5, ratedAt: at + 31 * MIN } : {}),
      }),
    );
  }
  tickets.push(ticket(DAY + 10 * 60 * MIN, { status: 'cancelled', endedBy: user, endedAt: DAY + 10 * 60 * MIN + MIN }));
  tickets.push(ticket(DAY + 11 * 60 * MIN, { status: 'timedout', endedAt: DAY + 12 * 60 * MIN }));
  // The day before: counts nowhere in this period.
  tickets.push(ticket(DAY - 60 * MIN, { status: 'closed', firstClaimedAt: DAY - 50 * MIN, endedAt: DAY - 40 * MIN }));
  return tickets;
}

describe('handoff figures', () => {
  const figures = computeHandoffFigures(dayOfTickets(), DAY, DAY + 24 * 60 * MIN - 1);

  it('counts the period’s events and takes nearest-rank p50 and p90 of the waits', () => {
    expect(figures).toEqual({
      opened: 10,
      claimed: 8,
      closed: 5,
      cancelled: 1,
      timedOut: 1,
      claimP50: 4 * MIN,
      claimP90: 8 * MIN,
      replyP50: 6 * MIN,
      replyP90: 10 * MIN,
      satisfactionAverage: 4.25,
      satisfactionCount: 4,
    });
    expect(handoffFiguresText(figures)).toContain('Handoffs: 10 opened, 8 claimed, 5 closed, 1 cancelled, 1 timed out');
  });

  it('the table shows those values: counts, waits, satisfaction on a 1-5 scale', () => {
    expect(rowsOf(figures)).toEqual([
      ['Handoffs', '10 opened, 8 claimed, 5 closed, 1 cancelled, 1 timed out'],
      ['Time to claim', 'p50 4 min, p90 8 min'],
      ['Time to first agent reply', 'p50 6 min, p90 10 min'],
      ['Satisfaction', '4.25/5 average of 4 ratings'],
    ]);
  });

  it('waits that are not whole minutes are rounded for reading; a period with nothing shows n/a and zeros', () => {
    const odd = computeHandoffFigures(
      [ticket(DAY, { status: 'claimed', firstClaimedAt: DAY + 90_000, firstReplyAt: DAY + 100_000 })],
      DAY,
      DAY + 24 * 60 * MIN,
    );
    expect(rowsOf(odd)).toContainEqual(['Time to claim', 'p50 2 min, p90 2 min']);
    expect(rowsOf(computeHandoffFigures([], DAY, DAY + 1))).toEqual([
      ['Handoffs', '0 opened, 0 claimed, 0 closed, 0 cancelled, 0 timed out'],
      ['Time to claim', 'p50 n/a, p90 n/a'],
      ['Time to first agent reply', 'p50 n/a, p90 n/a'],
      ['Satisfaction', 'n/a average of 0 ratings'],
    ]);
  });
});

/** The rows of /analytics' table that the handoff figures make. */
function rowsOf(f: ReturnType<typeof computeHandoffFigures>): string[][] {
  return figuresTable(`Analytics for Bot, 2026-11-20 to 2026-11-20\n${handoffFiguresText(f)}`).rows;
}
