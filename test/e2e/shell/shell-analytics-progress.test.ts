/**
 * `/analytics` posts "Crunching analytics…" and replaces it with the figures. On a terminal (a
 * pseudo-terminal from `script`) the figures take the progress line's place: once the output is
 * played on a terminal screen, the progress line is gone and the figures sit right under the typed
 * command. In a pipe nothing can be rewritten, so both come as plain lines, progress first.
 */
import { buildBridge, shellForDescribe } from '../../support/shell-bridge';
import { screenOf } from '../../support/terminal-screen';

const COLUMNS = 160;
const ESC = String.fromCharCode(0x1b);

beforeAll(buildBridge, 180_000);

describe('/analytics on a terminal', () => {
  // shellForDescribe (shell-bridge.ts): the built bridge in a scratch directory, through useStarted.
  const run = shellForDescribe('terminal', 'bridge-pty-analytics-', COLUMNS);

  test('the figures replace the "Crunching analytics…" line in place, after an answer was streamed', async () => {
    const { session } = run;
    await session.waitFor((o) => o.includes('chatbot-bridge shell'), 'the banner', 120_000);
    // An answer first, so the progress message is not the first thing the shell ever drew.
    session.child.stdin.write('How much is 3096 Larimer St?\r');
    await session.waitFor(
      (o) => screenOf(o, COLUMNS).some((l) => l.includes('Would you like to schedule a viewing')),
      'the answer',
    );

    session.child.stdin.write('/analytics\r');
    // The chart follows the replaced message, so once its path is shown the replacement is done.
    await session.waitFor((o) => screenOf(o, COLUMNS).some((l) => l.includes('saved to')), 'the chart');
    expect(session.output).toContain('Crunching analytics'); // it was drawn...

    const screen = screenOf(session.output, COLUMNS);
    expect(screen.join('\n')).not.toContain('Crunching analytics'); // ...and replaced
    expect(screen.join('\n')).not.toContain('(updated)');
    const typed = screen.map((l) => l.endsWith('/analytics')).lastIndexOf(true);
    expect(typed).toBeGreaterThan(-1);
    expect(screen[typed + 1]).toMatch(
      /^bot› Analytics for Skyline Realty Assistant, \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}$/,
    );
    expect(screen[typed + 2]).toBe('Conversations: 1');
    expect(screen.slice(typed).some((l) => /^bot› Chart: Skyline Realty Assistant/.test(l))).toBe(true);

    session.child.stdin.write('/quit\r');
    expect(await session.exited).toBe(0);
  }, 240_000);
});

describe('/analytics in a pipe', () => {
  const run = shellForDescribe('pipe', 'bridge-pipe-analytics-');

  test('plain lines: the progress line, then the figures, then the chart path; no control sequences', async () => {
    const { session } = run;
    await session.waitFor((o) => o.includes('chatbot-bridge shell'), 'the banner', 120_000);
    const before = session.output.length;
    session.type('/analytics');
    await session.waitFor((o) => o.slice(before).includes('saved to'), 'the chart');
    session.child.stdin.end();
    expect(await session.exited).toBe(0);

    const lines = session.output.slice(before).split('\n');
    const progress = lines.findIndex((l) => /^bot› Crunching analytics for [\d-]+ to [\d-]+…$/.test(l));
    const figures = lines.findIndex((l) => /^bot› Analytics for Skyline Realty Assistant, /.test(l));
    const chart = lines.findIndex((l) => /saved to \.\/data\/analytics-[\d-]+\.png$/.test(l));
    expect(progress).toBeGreaterThan(-1);
    expect(figures).toBeGreaterThan(progress);
    expect(chart).toBeGreaterThan(figures);
    expect(lines.filter((l) => l.includes('Crunching analytics'))).toHaveLength(1);
    expect(session.output).not.toContain(ESC);
  }, 240_000);
});
