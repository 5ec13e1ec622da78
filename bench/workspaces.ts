/**
 * `npm run bench -- --workspaces 2`: several Slack workspaces on one deployment. The bridge runs in
 * OAuth mode against the fake Slack (which enforces Slack's budgets per workspace and refuses a token
 * used on another workspace's channels); each workspace is installed through /slack/install and
 * /slack/oauth_redirect; then every workspace asks 30 questions at once (/ask, one per channel).
 * The same load in one workspace alone runs first, on a fresh bridge, for comparison.
 *
 * Prints per workspace: 429s, exact answers (the thread shows exactly the service's text), and the
 * partial texts per answer (distinct texts the answer's messages showed before their final one,
 * median and minimum), next to the workspace run alone. Writes bench-results-workspaces.json.
 * BENCH_CONCURRENCY (answers per workspace, default 30), BENCH_FRAGMENT_MS (the local service's pause
 * between answer fragments, default 250: answers of a few seconds).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp } from '../src/app';
import { loadConfig } from '../src/deployment/config';
import { buildLocalService } from '../src/local-service';
import { FakeSlack, type FakeMessage } from '../fakes/fake-slack';
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET } from '../fakes/fake-slack-oauth';
import { sameAnswer, shown } from '../fakes/slack-blocks';
import { SlackDriver, waitFor } from '../fakes/slack-requests';

const SIGNING_SECRET = 'bench-signing-secret';
const STATE_COOKIE = 'slack-app-oauth-state';
const QUESTIONS = ['Homes in Austin?', 'Condos in Denver?', 'Lofts in Boston?', 'Cabins in Maine?', 'Houses in Miami?'];

export interface WorkspaceFigures {
  run: string;
  team: string;
  answers: number;
  exact: number;
  rateLimited: number;
  partialsP50: number;
  partialsMin: number;
  /** Every 429 of the run, whatever the call (users.info names no channel). */
  runRateLimited?: number;
}

interface Bench {
  fake: FakeSlack;
  url: string;
  answerOf(question: string): string | undefined;
  close(): Promise<void>;
}

async function startBench(fragmentDelayMs: number): Promise<Bench> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-workspaces-'));
  const service = buildLocalService({ dbPath: join(dir, 'service.db'), fragmentDelayMs });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = service.app.server.address();
  const serviceUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const fake = await new FakeSlack({}).start();
  const config = loadConfig({
    CHATBOT_API_URL: serviceUrl,
    CHATBOT_SECRET_KEY: service.credentials.secretKey,
    CHATBOT_SESSION_KEY: service.credentials.sessionKey,
    CHATBOT_API_KEY: service.credentials.apiKey,
    CHATBOT_ID: service.chatbotId,
    STATE_URL: `sqlite:${join(dir, 'bridge.db')}`,
    PORT: '0',
    LOG_LEVEL: 'silent',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    SLACK_CLIENT_ID: FAKE_CLIENT_ID,
    SLACK_CLIENT_SECRET: FAKE_CLIENT_SECRET,
    SLACK_STATE_SECRET: 'bench-state-secret',
    STATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  const app = await startApp(config);
  const db = service.context.db;
  return {
    fake,
    url: app.url ?? '',
    answerOf: (question) =>
      (
        db
          .prepare(
            `SELECT a.content AS content FROM messages q JOIN messages a ON a.session_id = q.session_id
               AND a.role = 'assistant' AND a.id > q.id WHERE q.role = 'user' AND q.content = ? ORDER BY a.id LIMIT 1`,
          )
          .get(question) as { content: string } | undefined
      )?.content,
    async close() {
      await app.close(3000);
      await fake.close();
      await service.app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** "Add to Slack" as a browser does it: /slack/install, then Slack's redirect back with the code. */
async function install(b: Bench, team: string): Promise<SlackDriver> {
  const code = `code-${team}-${randomBytes(4).toString('hex')}`;
  b.fake.workspaces.grant(code, { team, teamName: `Office ${team}`, user: 'U0INSTALLER' });
  const start = await fetch(`${b.url}/slack/install`, { redirect: 'manual' });
  const state = new URL(start.headers.get('location') ?? 'http://missing/').searchParams.get('state') ?? '';
  const cookie = (start.headers.getSetCookie().find((c) => c.startsWith(`${STATE_COOKIE}=`)) ?? '').split(';')[0];
  const back = await fetch(`${b.url}/slack/oauth_redirect?code=${code}&state=${encodeURIComponent(state)}`, {
    redirect: 'manual',
    headers: cookie ? { cookie } : {},
  });
  if (back.status !== 200) throw new Error(`install of ${team}: ${back.status} ${await back.text()}`);
  return new SlackDriver(`${b.url}/slack/events`, SIGNING_SECRET, team);
}

interface Asked {
  channel: string;
  question: string;
}

/** One workspace's answers: 429s are the fake's count of refusals to that workspace's token. */
function figuresOf(b: Bench, run: string, team: string, asked: Asked[], rateLimited: number): WorkspaceFigures {
  const partials: number[] = [];
  let exact = 0;
  for (const a of asked) {
    const root = b.fake.channelMessages(a.channel).find((m) => shown(m.text).includes(`> ${a.question}`));
    const replies: FakeMessage[] = root ? b.fake.replies(a.channel, root.ts).filter((m) => m.bot_id !== undefined) : [];
    const answer = b.answerOf(a.question);
    if (answer !== undefined && sameAnswer(replies, answer)) exact++;
    partials.push(replies.reduce((n, m) => n + new Set(m.history.filter((h) => h !== '' && h !== m.text)).size, 0));
  }
  const sorted = [...partials].sort((x, y) => x - y);
  return {
    run,
    team,
    answers: asked.length,
    exact,
    rateLimited,
    partialsP50: sorted[Math.floor((sorted.length - 1) / 2)] ?? 0,
    partialsMin: sorted[0] ?? 0,
  };
}

/** `teams` installed on one fresh bridge, then `perTeam` questions each, all at once. */
async function runWorkspaces(run: string, teams: string[], perTeam: number, fragmentMs: number) {
  const b = await startBench(fragmentMs);
  try {
    const drivers = new Map<string, SlackDriver>();
    const asked = new Map<string, Asked[]>();
    for (const team of teams) {
      const channels = Array.from({ length: perTeam }, (_, i) => `C${team}${i}`);
      b.fake.workspaces.addChannels(team, ...channels);
      drivers.set(team, await install(b, team));
      asked.set(
        team,
        // A question no other thread asks, so each answer is found by its question.
        channels.map((channel, i) => ({ channel, question: `${QUESTIONS[i % QUESTIONS.length]} (${team} #${i})` })),
      );
    }
    const refusedBefore = new Map(teams.map((t) => [t, refusalsOf(b, t)]));
    const allBefore = b.fake.rateLimited;
    await Promise.all(
      teams.flatMap((team) =>
        // One person per question, as in a real office (one person's 30 commands a minute would meet USER_RATE_LIMIT).
        (asked.get(team) ?? []).map((a, i) =>
          drivers.get(team)!.command('/ask', a.question, { channel: a.channel, user: `U${team}P${i}` }),
        ),
      ),
    );
    const all = teams.flatMap((t) => asked.get(t) ?? []);
    await waitFor(
      () => all.every((a) => b.answerOf(a.question) !== undefined),
      () =>
        `every answer stored (${all.filter((a) => b.answerOf(a.question) !== undefined).length} of ${all.length}): ${diagnosis(b, teams, asked)}`,
      120_000,
    );
    // Until every thread shows its exact final (or a minute passes: then the figures say how many did not).
    await waitFor(
      () => teams.every((t) => figuresOf(b, run, t, asked.get(t) ?? [], 0).exact === perTeam),
      'every answer shown exactly',
      60_000,
    ).catch(() => undefined);
    return teams.map((t) => ({
      ...figuresOf(b, run, t, asked.get(t) ?? [], refusalsOf(b, t) - (refusedBefore.get(t) ?? 0)),
      runRateLimited: b.fake.rateLimited - allBefore,
    }));
  } finally {
    await b.close();
  }
}

/** Why answers are missing: per workspace, roots posted and answers stored; the fake's refusals by error. */
function diagnosis(b: Bench, teams: string[], asked: Map<string, Asked[]>): string {
  const per = teams.map((t) => {
    const list = asked.get(t) ?? [];
    const roots = list.filter((a) => b.fake.channelMessages(a.channel).length > 0).length;
    const stored = list.filter((a) => b.answerOf(a.question) !== undefined).length;
    return `${t}: ${roots} roots, ${stored} stored`;
  });
  const errors = new Map<string, number>();
  for (const c of b.fake.calls) {
    if (c.response.ok === false) {
      const k = `${c.method} ${String(c.response.error)}`;
      errors.set(k, (errors.get(k) ?? 0) + 1);
    }
  }
  return `${per.join('; ')}; refusals ${JSON.stringify(Object.fromEntries(errors))}`;
}

/** 429s on the workspace's channels (every channel of the run is named after its workspace). */
function refusalsOf(b: Bench, team: string): number {
  return b.fake.calls.filter((c) => c.status === 429 && String(c.args.channel ?? '').startsWith(`C${team}`)).length;
}

function table(rows: WorkspaceFigures[]): string {
  const head = ['run', 'workspace', '429s', '429s (run, any call)', 'exact', 'partials p50 / min'];
  const lines = rows.map((r) => [
    r.run,
    r.team,
    String(r.rateLimited),
    String(r.runRateLimited ?? 0),
    `${r.exact}/${r.answers}`,
    `${r.partialsP50} / ${r.partialsMin}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const fmt = (l: string[]): string => l.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  return [fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(fmt)].join('\n');
}

export async function runWorkspacesBench(count: number): Promise<void> {
  const perTeam = Number(process.env.BENCH_CONCURRENCY ?? 30);
  const fragmentMs = Number(process.env.BENCH_FRAGMENT_MS ?? 250);
  const teams = Array.from({ length: count }, (_, i) => `T0W${i + 1}`);
  const loadBefore = loadavg()[0] ?? 0;
  const rows: WorkspaceFigures[] = [];
  for (const team of teams) {
    console.error(`workspaces bench: ${team} alone, ${perTeam} answers ...`);
    rows.push(...(await runWorkspaces('alone', [team], perTeam, fragmentMs)));
  }
  console.error(`workspaces bench: ${count} workspaces together, ${perTeam} answers each ...`);
  rows.push(...(await runWorkspaces('together', teams, perTeam, fragmentMs)));
  const load = `load average (1 min) ${loadBefore.toFixed(2)} before, ${(loadavg()[0] ?? 0).toFixed(2)} after, ${cpus().length} CPUs`;
  const text = table(rows);
  console.log(
    `${count} workspaces, ${perTeam} concurrent answers each (OAuth installs, fake Slack); ${load}\n\n${text}`,
  );
  const file = join(process.cwd(), 'bench-results-workspaces.json');
  writeFileSync(
    file,
    `${JSON.stringify({ generatedAt: new Date().toISOString(), node: process.version, load, perTeam, fragmentMs, rows, table: text }, null, 2)}\n`,
  );
  console.error(`wrote ${file}`);
}
