/**
 * The shell shows the same after-hours states as Slack and Discord: with HANDOFF_HOURS on a day
 * that is not today, /handoff opens the ticket marked "After hours", the user is told when agents
 * are back in the office's time, and /agent claim works as in hours. Driven through piped stdin of
 * the built bridge (`node dist/main.js`).
 */
import { buildBridge, shellForDescribe } from '../../support/shell-bridge';

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

describe('shell: a handoff outside office hours', () => {
  // Open only on the day after tomorrow (UTC): closed whenever this runs.
  const day = (new Date().getUTCDay() + 2) % 7;
  beforeAll(buildBridge, 180_000);
  // shellForDescribe (shell-bridge.ts): the built bridge in a scratch directory, through useStarted.
  const run = shellForDescribe('pipe', 'bridge-shell-hours-', undefined, {
    HANDOFF_HOURS: `${DAYS[day]} 09:00-17:00`,
    HANDOFF_TIMEZONE: 'UTC',
  });

  test('/handoff opens a ticket marked after hours and says when agents are back; /agent claim as in hours', async () => {
    const session = run.session;
    await session.waitFor((o) => (o.includes('chatbot-bridge shell') ? true : undefined), 'the banner');
    let from = session.output.length;
    session.type('/ask Any condos for sale in Miami?');
    await session.waitFor((o) => (o.slice(from).includes('Talk to a human') ? true : undefined), 'the answer');

    from = session.output.length;
    session.type('/handoff call me please');
    await session.waitFor(
      (o) =>
        /\[#handoff[^\n]*\] Waiting since [^\n]*\n[^\n]*After hours: opened outside office hours/.test(o.slice(from))
          ? true
          : undefined,
      'the ticket marked after hours',
    );
    await session.waitFor(
      (o) =>
        o.slice(from).includes(`Our agents are back ${LONG[day]} at 9:00 AM (Coordinated Universal Time).`)
          ? true
          : undefined,
      'when agents are back',
    );

    from = session.output.length;
    session.type('/agent claim');
    await session.waitFor((o) => (/claimed/i.test(o.slice(from)) ? true : undefined), 'the claim');
    session.child.stdin.end();
    expect(await session.exited).toBe(0);
  }, 120_000);
});
