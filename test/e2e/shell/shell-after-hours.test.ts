/**
 * The shell shows the same after-hours states as Slack and Discord: with HANDOFF_HOURS on a day
 * that is not today, /handoff opens the ticket marked "After hours", the user is told when agents
 * are back in the office's time, and /agent claim works as in hours. Driven through piped stdin of
 * the built bridge (`node dist/main.js`).
 */
import { spawn } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { ShellSession as Session } from '../../support/shell-session';

const ROOT = join(__dirname, '..', '..', '..');
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

describe('shell: a handoff outside office hours', () => {
  let dir: string;
  let session: Session;
  // Open only on the day after tomorrow (UTC): closed whenever this runs.
  const day = (new Date().getUTCDay() + 2) % 7;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bridge-shell-hours-'));
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      STATE_URL: `sqlite:${join(dir, 'bridge.db')}`,
      SERVICE_DB: join(dir, 'service.db'),
      NO_COLOR: '1',
      HANDOFF_HOURS: `${DAYS[day]} 09:00-17:00`,
      HANDOFF_TIMEZONE: 'UTC',
    };
    session = new Session(spawn(process.execPath, ['dist/main.js'], { cwd: ROOT, env, stdio: 'pipe' }));
    await session.waitFor((o) => (o.includes('chatbot-bridge shell') ? true : undefined), 'the banner');
  });

  afterAll(() => {
    if (session.child.exitCode === null) session.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  test('/handoff opens a ticket marked after hours and says when agents are back; /agent claim as in hours', async () => {
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
