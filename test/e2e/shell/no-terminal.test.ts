/**
 * `npm start` with no Slack or Discord configuration and no terminal: it must exit on its own with
 * a message saying how to configure Slack or Discord, whether stdin is /dev/null or an empty pipe.
 */
import { spawn } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

const ROOT = join(__dirname, '..', '..', '..');

type Run = { code: number | null; output: string };

function start(stdin: 'ignore' | 'pipe', env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['start', '--silent'], { cwd: ROOT, env, stdio: [stdin, 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr?.on('data', (c: Buffer) => (output += c.toString('utf8')));
    // Bounded: a hang is the failure this test exists to catch.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`npm start did not exit; output:\n${output}`));
    }, 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
    if (stdin === 'pipe') child.stdin?.end();
  });
}

describe('npm start with no terminal and no surface configured', () => {
  // Not useStarted: nothing runs across tests; each spawns its own npm start and waits for it to exit.
  let dir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'bridge-noterm-'));
    env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      STATE_URL: `sqlite:${join(dir, 'bridge.db')}`,
      SERVICE_DB: join(dir, 'service.db'),
      NO_COLOR: '1',
    };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const expectHowTo = (run: Run) => {
    expect(run.code).not.toBe(0);
    expect(run.output).toMatch(/no chat surface is configured/);
    expect(run.output).toContain('SLACK_BOT_TOKEN');
    expect(run.output).toContain('DISCORD_TOKEN');
    expect(run.output).not.toMatch(/failed to start|sonic boom|at .*\.js:\d+/);
  };

  test('stdin from /dev/null: exits with how to configure Slack or Discord', async () => {
    expectHowTo(await start('ignore', env));
  }, 150_000);

  test('an empty pipe on stdin: the same message, no crash', async () => {
    expectHowTo(await start('pipe', env));
  }, 150_000);
});
