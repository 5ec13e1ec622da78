/**
 * Drives `npm start` exactly as a person would with piped input: no Slack or Discord configured,
 * the in-process local chatbot service, the terminal shell. Each step waits for the output it
 * expects before typing the next line.
 */
import { spawn } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { useStarted } from '../../support/server-setup';
import { ShellSession as Session } from '../../support/shell-session';

const ROOT = join(__dirname, '..', '..', '..');

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe('npm start: the terminal shell against the in-process local chatbot service', () => {
  // `npm start` itself (not the built dist/main.js), its state and service database in a scratch directory.
  const run = useStarted(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridge-shell-'));
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      STATE_URL: `sqlite:${join(dir, 'bridge.db')}`,
      SERVICE_DB: join(dir, 'service.db'),
      NO_COLOR: '1',
    };
    const session = new Session(spawn('npm', ['start', '--silent'], { cwd: ROOT, env, stdio: 'pipe' }));
    return {
      session,
      close() {
        if (session.child.exitCode === null) session.child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });

  test('/ask streams an answer, a follow-up continues the thread, /listings prints a table, end of input exits', async () => {
    const { session } = run;
    await session.waitFor((o) => o.includes('chatbot-bridge shell'), 'the banner', 120_000);

    session.type('/ask What homes are for sale in Austin?');
    // The root names the user and quotes the question; the answer follows in the thread.
    await session.waitFor(
      (o) => o.includes('asked') && o.includes('What homes are for sale in Austin?'),
      'the root message',
    );
    await session.waitFor(
      (o) => /bot› [^\n]*Austin/.test(o.split('What homes are for sale in Austin?').slice(1).join('')),
      'an answer about Austin',
    );
    const answers = count(session.output, 'Talk to a human');
    expect(answers).toBeGreaterThanOrEqual(1);

    session.type('And which ones have 3 bedrooms?');
    await session.waitFor((o) => count(o, 'Talk to a human') > answers, 'the follow-up answer');
    // The follow-up went to the same conversation: no new root message was started for it.
    expect(count(session.output, 'asked')).toBe(1);

    session.type('/listings city:Austin');
    await session.waitFor((o) => /Listing\s+.*Price/i.test(o) || /#\s+Listing/.test(o), 'the listings table');
    const table = session.output.slice(session.output.lastIndexOf('Listing'));
    expect(table).toMatch(/Austin/);

    session.child.stdin.end();
    expect(await session.exited).toBe(0);
  }, 240_000);
});
