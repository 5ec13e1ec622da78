/**
 * `npm run bench -- --scale-out`: the bridge scaled out as an operator runs it, measured as a whole.
 *
 * Three bridge processes (the compiled entry, each with its own PORT) on one Redis, behind one
 * address for Slack's requests (a round-robin proxy); a fake Slack per workspace with Slack's
 * budgets enforced; the local chatbot service. Many signed `/ask` at once, spread over workspaces
 * and channels; once half the answers are settled, one instance is SIGKILLed. The figures: answers
 * exact, 429s, final lag, how long the killed instance's unsettled answers took to be completed or
 * marked interrupted (text so far, Retry) by the others, duplicate posts, memory per instance, Redis
 * commands per answer, and whether any queue item, in-flight record or question was lost.
 *
 * Workspaces: the instances run in OAuth mode, and every workspace is installed through the proxy as
 * a browser does ("Add to Slack": fakes/slack-install.ts), so the instances find each workspace's
 * token in the shared store. One fake Slack serves them all: each token works on its own workspace's
 * channels only, and each workspace has its own budgets (the fake's tier buckets are keyed by the
 * caller's team; chat.postMessage's by channel).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildLocalService, type LocalService } from '../../src/local-service';
import { FakeSlack } from '../../fakes/fake-slack';
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET } from '../../fakes/fake-slack-oauth';
import { install } from '../../fakes/slack-install';
import type { SlackDriver } from '../../fakes/slack-requests';
import { waitFor } from '../../fakes/wait-for';
import { percentile } from '../relay-bench';
import { type Ask, type Seen, seen, serviceGot, storedAnswer } from './answers';
import { BridgeInstance } from './instances';
import { RoundRobinProxy } from './proxy';
import { type BenchRedis, startBenchRedis } from './redis';
import { markTimes, type ScaleOptions, type ScaleReport } from './report';

const SECRET = 'scale-out-bench-signing-secret';
const CITIES = ['Austin', 'Denver', 'Seattle', 'Miami'];

interface Workspace {
  team: string;
  fake: FakeSlack;
  driver: SlackDriver;
}

const teamOf = (w: number): string => `T0SCALE${w + 1}`;

/** The channel of ask `index`: each workspace has its own channels (o.channels spread over the workspaces). */
const channelsEach = (o: ScaleOptions): number => Math.max(1, Math.floor(o.channels / o.workspaces));

function channelOf(o: ScaleOptions, index: number): string {
  const w = index % o.workspaces;
  const c = Math.floor(index / o.workspaces) % channelsEach(o);
  return `C0W${w + 1}S${String(c).padStart(3, '0')}`;
}

/** The environment every instance shares: OAuth mode (no bot token), one store, one signing secret. */
function instanceEnv(o: ScaleOptions, service: LocalService, serviceUrl: string, fake: FakeSlack, redisUrl: string) {
  return {
    CHATBOT_API_URL: serviceUrl,
    CHATBOT_SECRET_KEY: service.credentials.secretKey,
    CHATBOT_SESSION_KEY: service.credentials.sessionKey,
    CHATBOT_API_KEY: service.credentials.apiKey,
    CHATBOT_ID: service.chatbotId,
    SLACK_CLIENT_ID: FAKE_CLIENT_ID,
    SLACK_CLIENT_SECRET: FAKE_CLIENT_SECRET,
    SLACK_STATE_SECRET: 'scale-out-bench-state-secret',
    STATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: fake.apiUrl,
    STATE_URL: redisUrl,
    PORT: '0',
    // Many users at once: the per-person flood limit is not what is measured.
    USER_RATE_LIMIT: '0',
    ...(o.leaseS ? { INSTANCE_LEASE_S: o.leaseS } : {}),
  };
}

/** "Add to Slack" for each workspace, through the proxy (so the install page and the redirect may reach different instances). */
async function installWorkspaces(o: ScaleOptions, fake: FakeSlack, proxyUrl: string): Promise<Workspace[]> {
  const out: Workspace[] = [];
  for (let w = 0; w < o.workspaces; w++) {
    const team = teamOf(w);
    const channels = Array.from({ length: o.workspaces * channelsEach(o) }, (_, i) => i).filter(
      (i) => i % o.workspaces === w,
    );
    fake.workspaces.addChannels(team, ...channels.map((i) => channelOf(o, i)), `C0WARM${w + 1}`);
    const grant = { team, teamName: `Office ${w + 1}`, user: `U0OWNER${w + 1}` };
    const { driver } = await install({ app: { url: proxyUrl }, fake }, grant, SECRET);
    out.push({ team, fake, driver });
  }
  return out;
}

interface Rig {
  dir: string;
  redis: BenchRedis;
  service: LocalService;
  serviceUrl: string;
  workspaces: Workspace[];
  instances: BridgeInstance[];
  proxy: RoundRobinProxy;
}

async function startRig(o: ScaleOptions): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'scale-bench-'));
  const redis = await startBenchRedis();
  const service = buildLocalService({ dbPath: join(dir, 'service.db'), fragmentDelayMs: o.fragmentDelayMs });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = service.app.server.address();
  const serviceUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const fake = await new FakeSlack({ streaming: o.streaming }).start();
  const instances: BridgeInstance[] = [];
  const proxy = await new RoundRobinProxy(() => instances.map((i) => i.url)).start();
  const env = instanceEnv(o, service, serviceUrl, fake, redis.url);
  const started = await Promise.all(
    Array.from({ length: o.instances }, (_, i) => BridgeInstance.start(`scale-${String.fromCharCode(97 + i)}`, env)),
  );
  instances.push(...started);
  const workspaces = await installWorkspaces(o, fake, proxy.url);
  return { dir, redis, service, serviceUrl, workspaces, instances, proxy };
}

async function stopRig(r: Rig): Promise<void> {
  await Promise.all(r.instances.map((i) => i.stop()));
  // BENCH_SCALE_LOG_DIR: every instance's log lines (pino JSON), to read what a figure came from.
  const logDir = process.env.BENCH_SCALE_LOG_DIR;
  if (logDir) {
    mkdirSync(logDir, { recursive: true });
    for (const i of r.instances) {
      writeFileSync(join(logDir, `${i.name}.log`), i.lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    }
  }
  await r.proxy.close();
  await Promise.all([...new Set(r.workspaces.map((w) => w.fake))].map((f) => f.close()));
  await r.service.app.close();
  await r.redis.close();
  rmSync(r.dir, { recursive: true, force: true });
}

function asksFor(o: ScaleOptions): Ask[] {
  return Array.from({ length: o.answers }, (_, index) => ({
    index,
    workspace: index % o.workspaces,
    channel: channelOf(o, index),
    user: `U0SCALE${String(index).padStart(3, '0')}`,
    // About 1,300 to 2,200 characters each (about 1,600 on average), 47 to 86 fragments.
    question: `Show me all homes for ${index % 2 ? 'rent' : 'sale'} in ${CITIES[Math.floor(index / 2) % CITIES.length]} (ask ${index})`,
  }));
}

/** Sends every `/ask` at once through the proxy; resolves with how many were not acknowledged 200. */
async function sendAsks(r: Rig, asks: Ask[]): Promise<number> {
  const statuses = await Promise.all(
    asks.map((a) =>
      r.workspaces[a.workspace]!.driver.command('/ask', a.question, { user: a.user, channel: a.channel }).then(
        (res) => res.status,
        () => 0,
      ),
    ),
  );
  return statuses.filter((s) => s !== 200).length;
}

/** Which instance took each ask: the proxy's routing of its `/ask` (that instance queues and answers it). */
function routedTo(r: Rig, asks: Ask[]): Map<number, number> {
  const byChannelAndText = new Map<string, number>();
  for (const route of r.proxy.routed) {
    const fields = new URLSearchParams(route.body);
    if (fields.get('command') !== '/ask') continue;
    byChannelAndText.set(`${fields.get('channel_id')}|${fields.get('text')}`, route.instance);
  }
  const out = new Map<number, number>();
  for (const a of asks) {
    const i = byChannelAndText.get(`${a.channel}|${a.question}`);
    if (i !== undefined) out.set(a.index, i);
  }
  return out;
}

function seenNow(r: Rig, asks: Ask[]): Seen[] {
  const db = r.service.context.db;
  return asks.map((a) => seen(r.workspaces[a.workspace]!.fake, a, storedAnswer(db, a.question)?.text));
}

/**
 * One answer before the measured run (the instances warm, the service's stream length learned):
 * resolves with how long the service streamed it (ms).
 */
async function warmUp(r: Rig): Promise<number> {
  const ask: Ask = {
    index: -1,
    workspace: 0,
    channel: 'C0WARM1',
    user: 'U0WARMUP',
    question: 'Show me all homes for sale in Austin (warm-up)',
  };
  const w = r.workspaces[0]!;
  await w.driver.command('/ask', ask.question, { user: ask.user, channel: ask.channel });
  const db = r.service.context.db;
  await waitFor(
    () => seen(w.fake, ask, storedAnswer(db, ask.question)?.text).outcome === 'exact',
    'the warm-up answer',
    60_000,
  );
  const row = db
    .prepare(
      `SELECT response_ms AS ms FROM messages WHERE role = 'assistant' AND response_ms IS NOT NULL ORDER BY id DESC LIMIT 1`,
    )
    .get() as { ms: number } | undefined;
  return row?.ms ?? 6_000;
}

/** Kills `victim` halfway: once half the answers are settled (exact or marked). */
async function killHalfway(r: Rig, asks: Ask[], victim: BridgeInstance): Promise<number> {
  const half = Math.ceil(asks.length / 2);
  await waitFor(
    () => seenNow(r, asks).filter((s) => s.outcome !== 'pending').length >= half,
    'half the answers settled',
    300_000,
  );
  return victim.kill();
}

/** Waits until every ask's thread is settled (exact or marked), or the timeout: what it shows then. */
async function settle(r: Rig, asks: Ask[], timeoutMs: number): Promise<Seen[]> {
  await waitFor(() => seenNow(r, asks).every((s) => s.outcome !== 'pending'), 'every answer settled', timeoutMs).catch(
    (err: unknown) => console.error(`  ${String(err)}: reporting what is there`),
  );
  return seenNow(r, asks);
}

/**
 * The killed instance's asks that were not settled when it died: routed to it (it queued them), or
 * answered by it (its in-flight records, still in the store until another instance marks them; an
 * instance's queue sweep may take a thread another one queued).
 */
async function victimAsks(r: Rig, asks: Ask[], victim: BridgeInstance, victimIndex: number): Promise<Set<number>> {
  const routes = routedTo(r, asks);
  const threads = new Set<string>();
  for (const raw of await r.redis.values('bridge:kv:inflight:*')) {
    const rec = JSON.parse(raw) as { owner?: string; place?: { channel?: string; thread?: string } };
    if (rec.owner === victim.name) threads.add(`${rec.place?.channel}|${rec.place?.thread}`);
  }
  const before = seenNow(r, asks);
  const out = new Set<number>();
  for (const a of asks) {
    const s = before[a.index]!;
    const answeredThere = threads.has(`${a.channel}|${s.root}`);
    if (s.outcome === 'pending' && (routes.get(a.index) === victimIndex || answeredThere)) out.add(a.index);
  }
  return out;
}

/**
 * What is left once every thread shows its outcome: the last final edit shows before its relay
 * deletes its record and its worker acks the item, so the check waits (bounded) for those steps.
 */
async function lostWork(r: Rig, asks: Ask[]): Promise<ScaleReport['lost']> {
  const db = r.service.context.db;
  const left = async () => ({
    queueItems: await r.redis.queued('bridge:q:convq:*:order'),
    inflightRecords: (await r.redis.keys('bridge:kv:inflight:*')).length,
  });
  const settled = await waitFor(
    async () => {
      const now = await left();
      return now.queueItems === 0 && now.inflightRecords === 0 ? now : undefined;
    },
    'queues and in-flight records empty',
    15_000,
  ).catch(left);
  return { ...settled, questionsNeverAsked: asks.filter((a) => !serviceGot(db, a.question)).length };
}

function answerFigures(r: Rig, asks: Ask[]): { chars: number; streamMs: number } {
  const rows = asks.map((a) => storedAnswer(r.service.context.db, a.question)).filter((x) => x !== undefined);
  const ms = r.service.context.db
    .prepare(`SELECT AVG(response_ms) AS ms FROM messages WHERE role = 'assistant' AND response_ms IS NOT NULL`)
    .get() as { ms: number | null };
  const chars = rows.reduce((n, x) => n + x.text.length, 0) / Math.max(1, rows.length);
  return { chars: Math.round(chars), streamMs: Math.round(ms.ms ?? 0) };
}

export async function runScaleOutBench(o: ScaleOptions, progress: (line: string) => void): Promise<ScaleReport> {
  const runStarted = Date.now();
  const r = await startRig(o);
  try {
    progress(`${o.instances} instances ready behind ${r.proxy.url}; warm-up answer ...`);
    const streamMs = await warmUp(r);
    const asks = asksFor(o);
    const commandsBefore = await r.redis.commands();
    const sentAt = Date.now();
    progress(`${asks.length} /ask at once over ${o.channels} channels; one answer streams about ${streamMs} ms`);
    const refusedAsks = await sendAsks(r, asks);
    const victimIndex = 1 % o.instances;
    const victim = r.instances[victimIndex]!;
    const killedAt = await killHalfway(r, asks, victim);
    const mine = await victimAsks(r, asks, victim, victimIndex);
    progress(`killed ${victim.name} at ${killedAt - sentAt} ms with ${mine.size} answers unsettled; settling ...`);
    const final = await settle(r, asks, o.settleTimeoutMs);
    const commands = (await r.redis.commands()) - commandsBefore;
    const report = figures(r, asks, final, mine, { sent: sentAt, killed: killedAt });
    const lost = await lostWork(r, asks);
    const marks = markTimes(r.instances, victim, killedAt);
    const memory = r.instances.map((i) => ({ instance: i.name, killed: i === victim, ...i.memory() }));
    const a = answerFigures(r, asks);
    return {
      options: o,
      ...report,
      ...marks,
      unsettled: asks
        .filter((a) => final[a.index]!.outcome === 'pending')
        .map((a) => ({
          question: a.question,
          roots: final[a.index]!.roots,
          serviceGot: serviceGot(r.service.context.db, a.question),
        })),
      leftToRecovery: r.instances
        .filter((i) => i !== victim)
        .reduce((n, i) => n + i.logged('conversation: item started by an earlier worker; left to recovery').length, 0),
      memory,
      redisCommands: commands,
      redisCommandsPerAnswer: Math.round(commands / asks.length),
      lost,
      answerChars: a.chars,
      streamMs: a.streamMs,
      refusedAsks,
      killAtMs: killedAt - sentAt,
      runMs: Date.now() - runStarted,
    };
  } finally {
    await stopRig(r);
  }
}

type Figures = Pick<
  ScaleReport,
  | 'answers'
  | 'perWorkspace'
  | 'exact'
  | 'survivorAnswers'
  | 'survivorExact'
  | 'takenOver'
  | 'takeoverP50Ms'
  | 'takeoverMaxMs'
  | 'rateLimited'
  | 'finalLagP50Ms'
  | 'finalLagP95Ms'
  | 'askToFinalP50Ms'
  | 'askToFinalP95Ms'
  | 'duplicates'
>;

function figures(r: Rig, asks: Ask[], final: Seen[], mine: Set<number>, at: { sent: number; killed: number }): Figures {
  const db = r.service.context.db;
  const survivors = asks.filter((a) => !mine.has(a.index));
  const taken = asks.filter((a) => mine.has(a.index)).map((a) => final[a.index]!);
  const takeover = taken.filter((s) => s.outcome !== 'pending').map((s) => s.settledAt - at.killed);
  if (taken.some((s) => s.outcome === 'pending')) takeover.push(Number.POSITIVE_INFINITY);
  const exact = asks.filter((a) => final[a.index]!.outcome === 'exact');
  const lags = exact.map((a) => final[a.index]!.settledAt - (storedAnswer(db, a.question)?.at ?? 0));
  const answerTimes = exact.map((a) => final[a.index]!.settledAt - at.sent);
  return {
    answers: asks.length,
    exact: final.filter((s) => s.outcome === 'exact').length,
    perWorkspace: r.workspaces.map((w, i) => {
      const theirs = asks.filter((a) => a.workspace === i);
      return {
        team: w.team,
        answers: theirs.length,
        exact: theirs.filter((a) => final[a.index]!.outcome === 'exact').length,
        interrupted: theirs.filter((a) => final[a.index]!.outcome === 'interrupted').length,
      };
    }),
    survivorAnswers: survivors.length,
    survivorExact: survivors.filter((a) => final[a.index]!.outcome === 'exact').length,
    takenOver: {
      total: taken.length,
      completed: taken.filter((s) => s.outcome === 'exact').length,
      interrupted: taken.filter((s) => s.outcome === 'interrupted').length,
      unsettled: taken.filter((s) => s.outcome === 'pending').length,
    },
    takeoverP50Ms: percentile(takeover, 50),
    takeoverMaxMs: percentile(takeover, 100),
    rateLimited: [...new Set(r.workspaces.map((w) => w.fake))].reduce((n, f) => n + f.rateLimited, 0),
    finalLagP50Ms: percentile(lags, 50),
    finalLagP95Ms: percentile(lags, 95),
    askToFinalP50Ms: percentile(answerTimes, 50),
    askToFinalP95Ms: percentile(answerTimes, 95),
    duplicates: final.reduce((n, s) => n + Math.max(0, s.roots - 1) + Math.max(0, s.answerRuns - 1), 0),
  };
}
