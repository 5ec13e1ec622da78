/**
 * One run of `npm run bench -- --tenants N`: a deployment with N installed Slack workspaces and a
 * year of leads history, measured idle and then answering.
 *
 * 1. A Redis of the bench's own (bench/scale-out/redis.ts; or BENCH_REDIS_URL), the local chatbot
 *    service and one fake Slack.
 * 2. Seeded as the bridge writes it (seed.ts): N - 5 workspaces through the bridge's installation
 *    store, sealed, and every workspace's closed tickets over the year before the last 3 days; the
 *    chatbot's EmailForDailyLeads set and SMTP_URL given, so the day's leads run as for offices that mail.
 * 3. One bridge instance as an operator runs it (the compiled entry, OAuth mode, the same
 *    STATE_ENCRYPTION_KEY); the 5 answering workspaces installed through "Add to Slack" as a browser
 *    does (fakes/slack-install.ts).
 * 4. Once its start-up sweeps are done (a settle time), an idle window: Redis commands over the
 *    window (INFO commandstats, all of them the instance's but the bench's own two INFO), the
 *    instance's RSS at its end, and each periodic job's time (the bridge's `sweep done` debug lines).
 * 5. Then the answers: `answers` `/ask`s at once in the 5 workspaces (one channel each), each thread
 *    read on the fake Slack (exact, or not) as the scale-out bench reads them.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildLocalService, type LocalService } from '../../src/local-service';
import { appliedSettingsKey } from '../../src/core/settings/applied';
import { openStore } from '../../src/state/open-store';
import { SecretBox } from '../../src/state/secret-box';
import { FakeSlack } from '../../fakes/fake-slack';
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET } from '../../fakes/fake-slack-oauth';
import { install } from '../../fakes/slack-install';
import type { SlackDriver } from '../../fakes/slack-requests';
import { waitFor } from '../../fakes/wait-for';
import { percentile } from '../relay-bench';
import { type Ask, seen, storedAnswer } from '../scale-out/answers';
import { BridgeInstance } from '../scale-out/instances';
import { type BenchRedis, startBenchRedis } from '../scale-out/redis';
import { seed, type Seeded } from './seed';

const SECRET = 'tenants-bench-signing-secret';
const DAY_MS = 24 * 3600 * 1000;
/** Long enough to keep a year of tickets (the default, 90 days, would have expired most of them). */
const RETENTION_DAYS = 400;
const CITIES = ['Austin', 'Denver', 'Seattle', 'Miami'];

export interface TenantsOptions {
  workspaces: number;
  /** Workspaces installed through "Add to Slack" that answer (the rest are idle). */
  answering: number;
  answers: number;
  ticketsPerWorkspace: number;
  settleMs: number;
  idleWindowMs: number;
  fragmentDelayMs: number;
  timeoutMs: number;
}

export interface SweepFigure {
  sweep: string;
  /** Runs in the idle window, and their time (ms): median, longest. */
  runs: number;
  p50Ms: number | null;
  maxMs: number | null;
  /** The job's first run after the start (the ones that walk the records once). */
  firstMs: number | null;
}

export interface TenantsRun {
  workspaces: number;
  tickets: number;
  redisKeys: number;
  seedMs: number;
  /** Commands from the instance's start to the idle window (the 5 installs included). */
  startupCommands: number;
  idleCommands: number;
  idleWindowMs: number;
  idleCommandsPerMinute: number;
  /** Calls the instance made to Slack in the idle window. */
  idleSlackCalls: number;
  rssMb: number | null;
  peakRssMb: number | null;
  sweeps: SweepFigure[];
  answers: {
    asked: number;
    exact: number;
    askToFinalP50Ms: number | null;
    askToFinalP95Ms: number | null;
    finalLagP50Ms: number | null;
    finalLagP95Ms: number | null;
    rateLimited: number;
    duplicates: number;
  };
  /** `uptime`'s load averages (1, 5, 15 min) before and after the run. */
  loadBefore: number[];
  loadAfter: number[];
}

const teamOf = (i: number, o: TenantsOptions): string =>
  i < o.answering ? `T0ANS${i + 1}` : `T0IDLE${String(i).padStart(5, '0')}`;

interface Rig {
  dir: string;
  redis: BenchRedis;
  service: LocalService;
  serviceUrl: string;
  fake: FakeSlack;
  instance?: BridgeInstance;
}

async function startRig(o: TenantsOptions): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'tenants-bench-'));
  const redis = await startBenchRedis();
  const service = buildLocalService({ dbPath: join(dir, 'service.db'), fragmentDelayMs: o.fragmentDelayMs });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = service.app.server.address();
  const serviceUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const fake = await new FakeSlack({}).start();
  return { dir, redis, service, serviceUrl, fake };
}

async function stopRig(r: Rig): Promise<void> {
  await r.instance?.stop();
  await r.fake.close();
  await r.service.app.close();
  await r.redis.close();
  rmSync(r.dir, { recursive: true, force: true });
}

function instanceEnv(r: Rig, key: Buffer): Record<string, string> {
  const c = r.service.credentials;
  return {
    CHATBOT_API_URL: r.serviceUrl,
    CHATBOT_SECRET_KEY: c.secretKey,
    CHATBOT_SESSION_KEY: c.sessionKey,
    CHATBOT_API_KEY: c.apiKey,
    CHATBOT_ID: r.service.chatbotId,
    SLACK_CLIENT_ID: FAKE_CLIENT_ID,
    SLACK_CLIENT_SECRET: FAKE_CLIENT_SECRET,
    SLACK_STATE_SECRET: 'tenants-bench-state-secret',
    STATE_ENCRYPTION_KEY: key.toString('base64'),
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: r.fake.apiUrl,
    STATE_URL: r.redis.url,
    PORT: '0',
    RETENTION_DAYS: String(RETENTION_DAYS),
    USER_RATE_LIMIT: '0',
    // The periodic jobs' `sweep done` lines (their time) are debug lines.
    LOG_LEVEL: 'debug',
    // E-mail on (the day's leads and the mail outbox run as in an office that mails): nothing is owed
    // in the run, so nothing is sent to this address, where no server listens.
    SMTP_URL: 'smtp://127.0.0.1:9',
  };
}

async function seedStore(r: Rig, o: TenantsOptions, key: Buffer): Promise<Seeded> {
  const store = await openStore(r.redis.url);
  try {
    const teams = Array.from({ length: o.workspaces }, (_, i) => teamOf(i, o));
    // The chatbot's EmailForDailyLeads: every office mails its day's leads.
    await store.set(appliedSettingsKey(r.service.chatbotId), { EmailForDailyLeads: 'leads@example.com' });
    return await seed(store, new SecretBox(key), {
      teams: teams.slice(o.answering),
      ticketTeams: teams,
      ticketsPerTeam: o.ticketsPerWorkspace,
      now: Date.now(),
      retentionMs: RETENTION_DAYS * DAY_MS,
    });
  } finally {
    await store.close();
  }
}

/** "Add to Slack" for each answering workspace, through the instance: a driver per workspace. */
async function installAnswering(r: Rig, o: TenantsOptions, url: string): Promise<SlackDriver[]> {
  const drivers: SlackDriver[] = [];
  for (let w = 0; w < o.answering; w++) {
    const team = teamOf(w, o);
    r.fake.workspaces.addChannels(team, ...Array.from({ length: o.answers }, (_, i) => `C0A${w + 1}N${i}`));
    const grant = { team, teamName: `Office ${team}`, user: `U0OWNER${w + 1}` };
    drivers.push((await install({ app: { url }, fake: r.fake }, grant, SECRET)).driver);
  }
  return drivers;
}

function sweepFigures(inst: BridgeInstance, from: number, to: number): SweepFigure[] {
  const lines = inst.logged('sweep done');
  const kinds = [...new Set(lines.map((l) => String(l.sweep)))].sort();
  return kinds.map((sweep) => {
    const mine = lines.filter((l) => l.sweep === sweep);
    const inWindow = mine.filter((l) => Number(l.time) >= from && Number(l.time) <= to).map((l) => Number(l.ms));
    return {
      sweep,
      runs: inWindow.length,
      p50Ms: percentile(inWindow, 50),
      maxMs: percentile(inWindow, 100),
      firstMs: mine.length > 0 ? Number(mine[0]!.ms) : null,
    };
  });
}

async function answer(r: Rig, o: TenantsOptions, drivers: SlackDriver[]): Promise<TenantsRun['answers']> {
  const asks: Ask[] = Array.from({ length: o.answers }, (_, index) => {
    const workspace = index % o.answering;
    return {
      index,
      workspace,
      channel: `C0A${workspace + 1}N${Math.floor(index / o.answering)}`,
      user: `U0ASK${String(index).padStart(3, '0')}`,
      question: `Show me all homes for ${index % 2 ? 'rent' : 'sale'} in ${CITIES[Math.floor(index / 2) % CITIES.length]} (tenants ${index})`,
    };
  });
  const limitedBefore = r.fake.rateLimited;
  const sentAt = Date.now();
  await Promise.all(
    asks.map((a) => drivers[a.workspace]!.command('/ask', a.question, { user: a.user, channel: a.channel })),
  );
  const db = r.service.context.db;
  const now = () => asks.map((a) => seen(r.fake, a, storedAnswer(db, a.question)?.text));
  await waitFor(() => now().every((s) => s.outcome !== 'pending'), 'every answer settled', o.timeoutMs).catch(
    (err: unknown) => console.error(`  ${String(err)}: reporting what is there`),
  );
  const final = now();
  const exact = asks.filter((a) => final[a.index]!.outcome === 'exact');
  return {
    asked: asks.length,
    exact: exact.length,
    askToFinalP50Ms: percentile(
      exact.map((a) => final[a.index]!.settledAt - sentAt),
      50,
    ),
    askToFinalP95Ms: percentile(
      exact.map((a) => final[a.index]!.settledAt - sentAt),
      95,
    ),
    finalLagP50Ms: percentile(
      exact.map((a) => final[a.index]!.settledAt - (storedAnswer(db, a.question)?.at ?? 0)),
      50,
    ),
    finalLagP95Ms: percentile(
      exact.map((a) => final[a.index]!.settledAt - (storedAnswer(db, a.question)?.at ?? 0)),
      95,
    ),
    rateLimited: r.fake.rateLimited - limitedBefore,
    duplicates: final.reduce((n, s) => n + Math.max(0, s.roots - 1) + Math.max(0, s.answerRuns - 1), 0),
  };
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

export async function runTenants(o: TenantsOptions, progress: (line: string) => void): Promise<TenantsRun> {
  const loadBefore = loadavg();
  const r = await startRig(o);
  try {
    const key = randomBytes(32);
    progress(
      `${o.workspaces} workspaces: seeding installations and ${o.workspaces * o.ticketsPerWorkspace} tickets ...`,
    );
    const seeded = await seedStore(r, o, key);
    const beforeStart = await r.redis.commands();
    const inst = await BridgeInstance.start(`tenants-${o.workspaces}`, instanceEnv(r, key));
    r.instance = inst;
    const drivers = await installAnswering(r, o, inst.url);
    progress(
      `seeded in ${seeded.ms} ms; instance ready, ${o.answering} installed by OAuth; settling ${o.settleMs / 1000} s ...`,
    );
    await sleep(o.settleMs);
    const windowStart = Date.now();
    const c0 = await r.redis.commands();
    const slack0 = r.fake.calls.length;
    await sleep(o.idleWindowMs);
    const c1 = await r.redis.commands();
    const windowEnd = Date.now();
    const memory = inst.memory();
    const idleSlackCalls = r.fake.calls.length - slack0;
    // The bench's own INFO at the window's end is one of them.
    const idleCommands = c1 - c0 - 1;
    const redisKeys = (await r.redis.keys('bridge:*')).length;
    progress(
      `idle: ${idleCommands} Redis commands in ${Math.round((windowEnd - windowStart) / 1000)} s; ${o.answers} answers ...`,
    );
    const answers = await answer(r, o, drivers);
    return {
      workspaces: o.workspaces,
      tickets: seeded.tickets,
      redisKeys,
      seedMs: seeded.ms,
      startupCommands: c0 - beforeStart,
      idleCommands,
      idleWindowMs: windowEnd - windowStart,
      idleCommandsPerMinute: Math.round((idleCommands * 60_000) / (windowEnd - windowStart)),
      idleSlackCalls,
      rssMb: memory?.rssMb ?? null,
      peakRssMb: memory?.peakRssMb ?? null,
      sweeps: sweepFigures(inst, windowStart, windowEnd),
      answers,
      loadBefore,
      loadAfter: loadavg(),
    };
  } finally {
    await stopRig(r);
  }
}
