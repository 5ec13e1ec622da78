/**
 * `npm run bench -- --hostile`: hostile input through the Slack surface while other people ask.
 *
 * One bridge (startApp, SQLite state) in this process behind the fake Slack Web API, the local
 * chatbot service in a child process (a remote service in production). Other users ask questions
 * round after round; in the hostile phase one user also posts two 39,000-character unbroken words
 * and a message of 40,000 `[` in their thread, hands it off (the ticket renders the transcript and
 * the lead summary), and, once an agent claims, sends the `[` flood again to the ticket thread.
 * perf_hooks.monitorEventLoopDelay gives the event loop's worst delay in each phase; each answer's
 * time runs from its /ask to the fake Slack's receipt of the call that finished it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import pino from 'pino';
import { startApp, type AppHandle } from '../../src/app';
import { loadConfig } from '../../src/deployment/config';
import { FakeSlack, type FakeMessage } from '../../fakes/fake-slack';
import { button } from '../../fakes/slack-blocks';
import { SlackDriver, waitFor } from '../../fakes/slack-requests';

const SECRET = 'hostile-bench-signing-secret';
const HANDOFF = 'C0HANDOFF';
const QUESTIONS = [
  'Which homes are for sale in Austin?',
  'Any condos for rent in Denver?',
  'What is the cheapest listing in Seattle?',
  'Show me 3-bedroom homes in Miami',
];

export interface PhaseFigures {
  name: string;
  /** The event loop's worst delay in the phase (ms). */
  worstDelayMs: number;
  p99DelayMs: number;
  /** This process's CPU time in the phase (ms): what the bridge spent, whatever else the machine ran. */
  cpuMs: number;
  /** The other users' answer times (ms). */
  answers: number;
  medianAnswerMs: number;
  p95AnswerMs: number;
  meanAnswerMs: number;
}

export interface HostileReport {
  users: number;
  rounds: number;
  quiet: PhaseFigures;
  hostile: PhaseFigures;
  /** hostile / quiet mean answer time. */
  answerRatio: number;
  ticketPosted: boolean;
  hostileChars: number;
}

interface Rig {
  app: AppHandle;
  fake: FakeSlack;
  driver: SlackDriver;
  service: ChildProcess;
  dir: string;
}

async function startService(dir: string): Promise<{ child: ChildProcess; env: Record<string, string> }> {
  const child = spawn(process.execPath, [join(__dirname, 'service-process.js')], {
    env: { PATH: process.env.PATH, SERVICE_DB: join(dir, 'service.db') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the service exited (${code}) before it listened`)));
  });
  const s = JSON.parse(first) as {
    url: string;
    chatbotId: string;
    secretKey: string;
    sessionKey: string;
    apiKey: string;
  };
  return {
    child,
    env: {
      CHATBOT_API_URL: s.url,
      CHATBOT_SECRET_KEY: s.secretKey,
      CHATBOT_SESSION_KEY: s.sessionKey,
      CHATBOT_API_KEY: s.apiKey,
      CHATBOT_ID: s.chatbotId,
    },
  };
}

async function startRig(users: string[]): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'hostile-bench-'));
  const { child, env } = await startService(dir);
  const fake = await new FakeSlack({
    users: Object.fromEntries([...users, 'U0HOSTILE', 'U0AGENT'].map((u) => [u, u.toLowerCase()])),
  }).start();
  fake.channelMembers[HANDOFF] = ['U0AGENT'];
  const config = loadConfig({
    ...env,
    STATE_URL: `sqlite:${join(dir, 'bridge.db')}`,
    PORT: '0',
    LOG_LEVEL: 'silent',
    SLACK_BOT_TOKEN: fake.botToken,
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: fake.apiUrl,
    SLACK_HANDOFF_CHANNEL: HANDOFF,
    // The bench's users ask as fast as they are answered: the flood limit is not what is measured.
    USER_RATE_LIMIT: '0',
  });
  const app = await startApp(config, { log: pino({ level: 'silent' }) });
  const driver = new SlackDriver(`${app.url}/slack/events`, SECRET, fake.team);
  return { app, fake, driver, service: child, dir };
}

async function stopRig(r: Rig): Promise<void> {
  await r.app.close(3000);
  await r.fake.close();
  r.service.kill('SIGTERM');
  rmSync(r.dir, { recursive: true, force: true });
}

/** The bot's final answer in a thread: its last reply, no longer streaming, with its buttons. */
function finalAnswer(fake: FakeSlack, channel: string, root: string): FakeMessage | undefined {
  const last = fake
    .replies(channel, root)
    .filter((m) => m.user === fake.botUserId)
    .at(-1);
  return last && !last.streaming && button(last, 'Talk to a human') ? last : undefined;
}

/** When the fake received the last call touching the thread's bot messages (the one that finished the answer). */
function finishedAt(fake: FakeSlack, channel: string, root: string): number {
  const ids = new Set(fake.replies(channel, root).map((m) => m.ts));
  let at = 0;
  for (const c of fake.calls) {
    const a = c.args as Record<string, unknown>;
    if (c.status !== 200 || String(a.channel ?? '') !== channel) continue;
    if (a.thread_ts === root || ids.has(String(a.ts ?? ''))) at = Math.max(at, c.at);
  }
  return at;
}

let seq = 0;

/** One /ask and its answer's time (ms). */
async function timedAsk(r: Rig, user: string, question: string): Promise<number> {
  const channel = `C0${user.slice(2)}${++seq}`;
  const started = Date.now();
  await r.driver.command('/ask', question, { user, channel });
  const root = await waitFor(
    () => r.fake.channelMessages(channel).find((m) => m.text.includes(`> ${question}`)),
    `the root of ${question}`,
    60_000,
  );
  await waitFor(() => finalAnswer(r.fake, channel, root.ts), `the answer to ${question}`, 60_000);
  return finishedAt(r.fake, channel, root.ts) - started;
}

/** Every other user asks `rounds` questions one after another, all users at once. */
async function othersAsk(r: Rig, users: string[], rounds: number): Promise<number[]> {
  const times: number[] = [];
  await Promise.all(
    users.map(async (user, u) => {
      for (let i = 0; i < rounds; i++) times.push(await timedAsk(r, user, QUESTIONS[(u + i) % QUESTIONS.length]!));
    }),
  );
  return times;
}

function threadMessage(r: Rig, channel: string, root: string, text: string, user = 'U0HOSTILE') {
  return r.driver.event({
    type: 'message',
    channel,
    channel_type: 'channel',
    user,
    text,
    ts: `${Math.floor(Date.now() / 1000)}.${String(100000 + ++seq)}`,
    thread_ts: root,
  });
}

/** The hostile user's flow; resolves with whether the ticket was posted. */
async function hostileFlow(r: Rig, words: string[], brackets: string): Promise<boolean> {
  const channel = 'C0HOSTILE';
  const question = 'Homes for sale in Austin? (hostile)';
  await r.driver.command('/ask', question, { user: 'U0HOSTILE', channel });
  const root = await waitFor(
    () => r.fake.channelMessages(channel).find((m) => m.text.includes(`> ${question}`)),
    'the hostile root',
    60_000,
  );
  await waitFor(() => finalAnswer(r.fake, channel, root.ts), 'the hostile answer', 60_000);
  for (const w of words) await threadMessage(r, channel, root.ts, w);
  await threadMessage(r, channel, root.ts, brackets);
  await r.app.bridge.conversations.idle();
  await r.driver.command('/handoff', 'I need a person', { user: 'U0HOSTILE', channel });
  const ticket = await waitFor(
    () => r.fake.channelMessages(HANDOFF).find((m) => button(m, 'Claim')),
    'the ticket',
    60_000,
  ).catch(() => undefined);
  if (!ticket) return false;
  await r.driver.click(button(ticket, 'Claim')!, { channel: HANDOFF, messageTs: ticket.ts }, { user: 'U0AGENT' });
  await waitFor(() => !button(r.fake.message(HANDOFF, ticket.ts)!, 'Claim') || undefined, 'the claim', 60_000);
  // Relayed to the ticket thread (mrkdwn conversion of 40,000 `[`), and the ticket re-rendered.
  await threadMessage(r, channel, root.ts, brackets);
  await waitFor(() => r.fake.replies(HANDOFF, ticket.ts).length > 0 || undefined, 'the relay', 60_000);
  return true;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function phase(name: string, work: () => Promise<number[]>): Promise<PhaseFigures> {
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const cpu = process.cpuUsage();
  const times = await work();
  const spent = process.cpuUsage(cpu);
  h.disable();
  const sorted = [...times].sort((a, b) => a - b);
  return {
    name,
    worstDelayMs: h.max / 1e6,
    p99DelayMs: h.percentile(99) / 1e6,
    cpuMs: (spent.user + spent.system) / 1000,
    answers: times.length,
    medianAnswerMs: percentile(sorted, 50),
    p95AnswerMs: percentile(sorted, 95),
    meanAnswerMs: times.reduce((a, b) => a + b, 0) / Math.max(1, times.length),
  };
}

export async function runHostileBench(opts: { users?: number; rounds?: number } = {}): Promise<HostileReport> {
  const users = Array.from({ length: opts.users ?? 6 }, (_, i) => `U0OTHER${i + 1}`);
  const rounds = opts.rounds ?? 4;
  const words = ['a', 'b'].map((c) => c.repeat(39_000));
  const brackets = '['.repeat(40_000);
  const r = await startRig(users);
  try {
    await othersAsk(r, users, 1); // warm-up: connections, sessions, compiled code
    const quiet = await phase('quiet', () => othersAsk(r, users, rounds));
    let ticketPosted = false;
    const hostile = await phase('hostile', async () => {
      const [times, posted] = await Promise.all([othersAsk(r, users, rounds), hostileFlow(r, words, brackets)]);
      ticketPosted = posted;
      return times;
    });
    return {
      users: users.length,
      rounds,
      quiet,
      hostile,
      answerRatio: hostile.meanAnswerMs / Math.max(1, quiet.meanAnswerMs),
      ticketPosted,
      hostileChars: 2 * 39_000 + 2 * 40_000,
    };
  } finally {
    await stopRig(r);
  }
}

export function formatHostileTable(rep: HostileReport): string {
  const ms = (n: number) => `${Math.round(n)} ms`;
  const row = (f: PhaseFigures) =>
    `| ${f.name} | ${ms(f.worstDelayMs)} | ${ms(f.p99DelayMs)} | ${ms(f.cpuMs)} | ${f.answers} | ${ms(f.medianAnswerMs)} | ${ms(f.p95AnswerMs)} | ${ms(f.meanAnswerMs)} |`;
  return [
    `Hostile input through the Slack surface: ${rep.users} other users x ${rep.rounds} questions; the hostile user posts two 39,000-character words and 40,000 '[' (twice), then /handoff (ticket posted: ${rep.ticketPosted ? 'yes' : 'NO'}).`,
    '',
    '| run | worst event-loop delay | p99 delay | bridge CPU | answers | median answer | p95 answer | mean answer |',
    '|---|---|---|---|---|---|---|---|',
    row(rep.quiet),
    row(rep.hostile),
    '',
    `Others' mean answer time, hostile / quiet: ${rep.answerRatio.toFixed(2)} (target <= 1.10); worst delay target < 50 ms: ${rep.hostile.worstDelayMs < 50 ? 'met' : 'NOT met'}.`,
  ].join('\n');
}
