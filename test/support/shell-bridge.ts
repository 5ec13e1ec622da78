/**
 * The built bridge (dist/main.js) started as a shell in a scratch directory of its own (./data, the
 * state and the service database are the run's), through a pseudo-terminal or a pipe: the two ways a
 * person meets the shell, which the shell e2e tests compare.
 */
import { execFileSync, spawn } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { useStarted } from './server-setup';
import { ShellSession } from './shell-session';

const ROOT = join(__dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'main.js');

interface ShellRun {
  /** The scratch directory the bridge runs in. */
  dir: string;
  session: ShellSession;
  /** Kills a bridge the test left running (a failed test) and removes its directory. */
  close(): void;
}

/** Builds dist/ once, as npm start would: the bridge runs from a scratch directory, not through ts. */
export function buildBridge(): void {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'ignore' });
}

/** Only what the bridge needs, so nothing from the developer's environment (tokens, STATE_URL) leaks in. */
function env(dir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    STATE_URL: `sqlite:${join(dir, 'bridge.db')}`,
    SERVICE_DB: join(dir, 'service.db'),
    ...extra,
  };
}

/**
 * Starts the bridge in a new directory under the system's temp folder named `tmpPrefix`…. On 'terminal',
 * `script` (util-linux) gives it a real TTY of `columns` × 50, so it styles and rewrites lines; on
 * 'pipe' it sees plain pipes.
 */
function startShell(
  on: 'terminal' | 'pipe',
  tmpPrefix: string,
  columns = 160,
  extra?: Record<string, string>,
): ShellRun {
  const dir = mkdtempSync(join(tmpdir(), tmpPrefix));
  const child =
    on === 'pipe'
      ? spawn('node', [MAIN], { cwd: dir, env: env(dir, extra), stdio: 'pipe' })
      : spawn('script', ['-qfc', `stty cols ${columns} rows 50; exec node ${JSON.stringify(MAIN)}`, '/dev/null'], {
          cwd: dir,
          env: { ...env(dir, extra), TERM: 'xterm-256color' },
          stdio: 'pipe',
        });
  const session = new ShellSession(child);
  return {
    dir,
    session,
    close() {
      if (session.child.exitCode === null) session.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The shell started (through the tests' one setup helper, useStarted) before the enclosing
 * describe's tests and stopped after them; tests read `run.session` inside a test, never at describe
 * time. `extraEnv`: more variables for the bridge (e.g. HANDOFF_HOURS). `untilBanner`: started counts
 * once the banner shows (a run that never shows it is stopped and fails the setup).
 */
export function shellForDescribe(
  on: 'terminal' | 'pipe',
  tmpPrefix: string,
  columns?: number,
  extraEnv?: Record<string, string>,
  opts: { untilBanner?: boolean } = {},
): ShellRun {
  return useStarted(async () => {
    const run = startShell(on, tmpPrefix, columns, extraEnv);
    if (opts.untilBanner)
      await run.session
        .waitFor((o) => (o.includes('chatbot-bridge shell') ? true : undefined), 'the banner')
        .catch((err: unknown) => {
          run.close();
          throw err;
        });
    return run;
  }, 60_000);
}
