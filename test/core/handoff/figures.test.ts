/** The handoff figures of a period, and the chart panels (and PNG) drawn from them: values checked. */
import { renderPanelChart } from '../../../src/core/analytics/chart';
import { computeHandoffFigures, handoffChartPanels, handoffFiguresText } from '../../../src/core/handoff/figures';
import type { Ticket } from '../../../src/core/handoff/model';
import { chartSpecOf, panelOf, pngChunks } from '../../support/png-chart';

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

  it('builds the chart panels with those values: counts, waits in minutes, satisfaction on a 1-5 scale', () => {
    expect(handoffChartPanels(figures)).toEqual([
      {
        title: 'Handoffs',
        labels: ['Opened', 'Claimed', 'Closed', 'Cancelled', 'Timed out'],
        values: [10, 8, 5, 1, 1],
      },
      {
        title: 'Handoff waits (min)',
        labels: ['Claim p50', 'Claim p90', 'Reply p50', 'Reply p90'],
        values: [4, 8, 6, 10],
      },
      { title: 'Satisfaction (1-5, 4 ratings)', labels: ['Average'], values: [4.25], max: 5 },
    ]);
  });

  it('waits that are not whole minutes keep two decimals; a period with nothing shows zeros', () => {
    const odd = computeHandoffFigures(
      [ticket(DAY, { status: 'claimed', firstClaimedAt: DAY + 90_000, firstReplyAt: DAY + 100_000 })],
      DAY,
      DAY + 24 * 60 * MIN,
    );
    expect(panelValues(handoffChartPanels(odd), 'Handoff waits')).toEqual([1.5, 1.5, 1.67, 1.67]);
    const none = handoffChartPanels(computeHandoffFigures([], DAY, DAY + 1));
    expect(panelValues(none, 'Handoffs')).toEqual([0, 0, 0, 0, 0]);
    expect(panelValues(none, 'Satisfaction')).toEqual([0]);
    expect(none[2]!.title).toBe('Satisfaction (1-5, 0 ratings)');
  });

  it('the PNG the chart renders is a valid PNG whose embedded spec carries the handoff panels and values', async () => {
    const png = await renderPanelChart({ title: 'Figures', panels: handoffChartPanels(figures) });
    const spec = chartSpecOf(png);
    expect(spec?.title).toBe('Figures');
    expect(panelOf(spec!, 'Handoffs').values).toEqual([10, 8, 5, 1, 1]);
    expect(panelOf(spec!, 'Handoff waits').values).toEqual([4, 8, 6, 10]);
    expect(panelOf(spec!, 'Satisfaction').values).toEqual([4.25]);
    // The pixels are the figures' too: other figures draw another image.
    const other = await renderPanelChart({
      title: 'Figures',
      panels: handoffChartPanels({ ...figures, opened: 3 }),
    });
    const pixels = (p: Buffer): Buffer =>
      Buffer.concat(
        pngChunks(p)
          .filter((c) => c.type === 'IDAT')
          .map((c) => c.data),
      );
    expect(pixels(other).equals(pixels(png))).toBe(false);
  });
});

function panelValues(panels: ReturnType<typeof handoffChartPanels>, titleStart: string): number[] {
  return panels.find((p) => p.title.startsWith(titleStart))!.values;
}
