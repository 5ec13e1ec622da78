/**
 * The bridge as a real process (`node dist/main.js`) for reliability tests: spawned with the
 * environment a deployment would give it, its port learned from its "ready" log line, stopped with
 * real signals. Also: a shared local chatbot service, a private redis-server, and the Slack helpers
 * (buttons in recorded blocks) the reliability tests share.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Redis from 'ioredis';
import type { LocalService } from '../../src/local-service';
import { chatbotEnv, startTestService, tempDir, type TestService } from './app-env';
import type { FakeMessage, FakeSlack } from '../../fakes/fake-slack';
import { sameAnswer } from '../../fakes/slack-blocks';
import { waitFor } from '../../fakes/slack-requests';

export const MAIN_JS = resolve(__dirname, '../../dist/main.js');
export const SIGNING_SECRET = 'reliability-signing-secret';
export const HANDOFF_CHANNEL = 'C0HANDOFF';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
}

/** One `node dist/main.js`: its log lines (pino JSON on stderr), port and exit. */
export class BridgeProcess {
  readonly lines: Array<Record<string, unknown>> = [];
  readonly rawOutput: string[] = [];
  port = 0;
  exit: ExitInfo | undefined;
  private readonly exited: Promise<ExitInfo>;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    this.exited = new Promise((done) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal, at: Date.now() };
        done(this.exit);
      });
    });
    const collect = (stream: NodeJS.ReadableStream | null): void => {
      let buffered = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        buffered += chunk;
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          this.rawOutput.push(line);
          try {
            const parsed = JSON.parse(line) as unknown;
            if (parsed && typeof parsed === 'object') this.lines.push(parsed as Record<string, unknown>);
          } catch {
            // not a log line (console output): kept in rawOutput only
          }
        }
      });
    };
    collect(child.stdout);
    collect(child.stderr);
  }

  /** Spawns the bridge and resolves once it logged "chatbot-bridge ready" (bounded). */
  static async start(name: string, env: Record<string, string>, timeoutMs = 20_000): Promise<BridgeProcess> {
    const cwd = mkdtempSync(join(tmpdir(), `bridge-${name}-`));
    const child = spawn(process.execPath, [MAIN_JS], {
      cwd,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const proc = new BridgeProcess(name, child);
    try {
      const ready = await waitFor(
        () => (proc.exit ? { failed: true as const } : proc.lines.find((l) => l.msg === 'chatbot-bridge ready')),
        `bridge ${name} to be ready`,
        timeoutMs,
      );
      if ('failed' in ready)
        throw new Error(`bridge ${name} exited at start-up:\n${proc.rawOutput.slice(-20).join('\n')}`);
      proc.port = Number(ready.port);
    } catch (err) {
      proc.child.kill('SIGKILL');
      throw err;
    }
    return proc;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get eventsUrl(): string {
    return `${this.url}/slack/events`;
  }

  signal(sig: NodeJS.Signals): void {
    if (!this.exit) this.child.kill(sig);
  }

  /**
   * SIGSTOP: resolves once the kernel shows the process stopped (state T in /proc/<pid>/stat), so
   * nothing it does can land after this returns. `thaw` lets it run again.
   */
  async freeze(): Promise<void> {
    this.signal('SIGSTOP');
    const stat = `/proc/${String(this.child.pid)}/stat`;
    const stopped = (): boolean => {
      // The state is the field after the command name, which is in parentheses and may hold any character.
      const text = readFileSync(stat, 'utf8');
      return text.slice(text.lastIndexOf(')') + 2).startsWith('T');
    };
    await waitFor(stopped, `bridge ${this.name} stopped`, 5000);
  }

  thaw(): void {
    this.signal('SIGCONT');
  }

  /** Resolves with the exit, or rejects after `timeoutMs`. */
  async waitExit(timeoutMs: number): Promise<ExitInfo> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`bridge ${this.name} did not exit within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** For afterAll: gone for sure. */
  async kill(): Promise<void> {
    if (this.exit) return;
    this.child.kill('SIGKILL');
    await this.waitExit(5000).catch(() => undefined);
  }

  /** Log lines at warn (40) or above, for failure messages. */
  problems(): string[] {
    return this.lines.filter((l) => Number(l.level) >= 40).map((l) => JSON.stringify(l).slice(0, 400));
  }
}

/** The local chatbot service on a real port, shared by every bridge process of a test file. */
export type SharedService = TestService;

export async function startSharedService(fragmentDelayMs: number): Promise<SharedService> {
  return startTestService({ dir: tempDir('reliability-service-').dir, fragmentDelayMs });
}

/** The environment of one bridge process talking to `service` and `fake`. */
export function bridgeEnv(opts: {
  serviceUrl: string;
  service: LocalService;
  fake: FakeSlack;
  stateUrl: string;
  instanceId: string;
  extra?: Record<string, string>;
}): Record<string, string> {
  return {
    ...chatbotEnv(opts.service, opts.serviceUrl),
    SLACK_BOT_TOKEN: opts.fake.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: opts.fake.apiUrl,
    SLACK_HANDOFF_CHANNEL: HANDOFF_CHANNEL,
    STATE_URL: opts.stateUrl,
    PORT: '0',
    INSTANCE_ID: opts.instanceId,
    ...opts.extra,
  };
}

/** Empties one Redis database of the shared server (tests use 12-15, never 0). */
export async function flushRedisDb(url: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
  try {
    await redis.connect();
    await redis.flushdb();
  } finally {
    redis.disconnect();
  }
}

/** A free TCP port on 127.0.0.1 (for a redis-server we start ourselves). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** A redis-server of our own (child process), restartable on the same port with the same data dir. */
export class OwnRedis {
  private child: ChildProcess | undefined;
  private readonly dir = mkdtempSync(join(tmpdir(), 'own-redis-'));

  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}/0`;
  }

  /** Starts it and waits until it answers PING. Data persists across restarts (append-only file). */
  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--dir',
        this.dir,
        '--daemonize',
        'no',
      ],
      { stdio: 'ignore' },
    );
    this.child = child;
    const probe = new Redis(this.port, '127.0.0.1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => undefined);
    try {
      await waitFor(
        async () => {
          if (child.exitCode !== null) throw new Error('redis-server exited at start-up');
          try {
            if (probe.status !== 'ready') await probe.connect();
            // Ours, not another server that took the port between freePort() and the spawn.
            return (await probe.info('server')).includes(`process_id:${child.pid}`);
          } catch {
            probe.disconnect();
            return false;
          }
        },
        `redis-server on ${this.port}`,
        10_000,
      );
    } finally {
      probe.disconnect();
    }
  }

  /** Kills it (SIGKILL: a crash, not a clean shutdown) and waits for the exit. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const gone = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill('SIGKILL');
    await gone;
  }
}

// ---- Slack helpers ---------------------------------------------------------------------------------

export interface FoundButton {
  action_id: string;
  value?: string;
  text: string;
}

/** Buttons of a message as the fake recorded its blocks. */
export function buttonsOf(msg: { blocks: unknown[] }): FoundButton[] {
  const out: FoundButton[] = [];
  for (const block of msg.blocks as Array<Record<string, unknown>>) {
    if (block.type !== 'actions') continue;
    for (const el of (block.elements as Array<Record<string, unknown>>) ?? []) {
      if (el.type !== 'button') continue;
      out.push({
        action_id: String(el.action_id),
        ...(typeof el.value === 'string' ? { value: el.value } : {}),
        text: String((el.text as { text?: unknown } | undefined)?.text ?? ''),
      });
    }
  }
  return out;
}

/** All text a message shows: its plain text and every text in its blocks (notices live there). */
export function shownText(msg: FakeMessage): string {
  return `${msg.text}\n${JSON.stringify(msg.blocks)}`;
}

/** A Slack-like ts for a user's message, unique per call and never one the fake hands out (it counts up from 1). */
let tsSeq = 0;
export function nextTs(): string {
  tsSeq = (tsSeq + 1) % 100_000;
  return `${Math.floor(Date.now() / 1000)}.9${String(tsSeq).padStart(5, '0')}`;
}

/** A message the relay has finished: no typing mark, not a native stream still open. */
function finished(m: FakeMessage): boolean {
  return !m.streaming && !JSON.stringify(m.blocks).includes('\u258d') && !JSON.stringify(m.blocks).includes('▍');
}

/**
 * Indexes in `messages` where a run of finished messages showing exactly `answer` starts, its last
 * message carrying the answer's buttons (the final edit was made).
 */
export function answerStarts(messages: FakeMessage[], answer: string): number[] {
  const starts: number[] = [];
  for (let start = 0; start < messages.length; start++) {
    for (let end = start + 1; end <= messages.length; end++) {
      if (messages[end - 1]!.text.trim() === '') break;
      const run = messages.slice(start, end);
      if (sameAnswer(run, answer)) {
        if (run.every(finished) && buttonsOf(run[run.length - 1]!).length > 0) starts.push(start);
        break;
      }
    }
  }
  return starts;
}
