/**
 * The whole bridge for Discord end-to-end tests: the local chatbot service (real HTTP, its own
 * SQLite file), the fake Discord (REST + gateway), and the app from src/app.ts configured through
 * the environment as a deployment would be (DISCORD_API_URL pointed at the fake).
 */
import { shownText } from '../../fakes/fake-discord-cv2';
import pino from 'pino';
import { startApp, type AppHandle } from '../../src/app';
import { loadConfig } from '../../src/deployment/config';
import { spellsAnswer } from '../../fakes/answer-text';
import { inProcessEnv, startTestService, tempDir, type InProcessE2E } from './app-env';
import {
  FakeDiscord,
  type FakeChannel,
  type FakeDiscordOptions,
  type FakeMember,
  type FakeMessage,
  type InteractionRecord,
  VIEW_CHANNEL,
} from '../../fakes/fake-discord';
import { chartSpecOf, type ChartSpec } from './png-chart';
import { waitFor } from '../../fakes/wait-for';
import { silentLog } from './silent-log';

/** A request the local chatbot service received (body as parsed; uploads as their size). */
export interface ServiceRequest {
  method: string;
  url: string;
  body: unknown;
  at: number;
}

export interface DiscordE2E extends InProcessE2E {
  /** Base URL of the local chatbot service. */
  serviceUrl: string;
  /** Every request the local chatbot service received, in order. */
  serviceRequests: ServiceRequest[];
  fake: FakeDiscord;
  general: FakeChannel;
  handoff: FakeChannel;
  adminRole: string;
  /** The role the handoff channel's overwrites let view it (agent's role). */
  agentRole: string;
  admin: FakeMember;
  user: FakeMember;
  agent: FakeMember;
  /**
   * Stops the app (as a deploy would) and starts a new one on the same state store, service and
   * fake Discord: the new client identifies again on the fake gateway.
   */
  restart(): Promise<void>;
}

export async function startDiscordE2E(
  opts: {
    fake?: FakeDiscordOptions;
    env?: Record<string, string>;
    /** Variables of the default environment to leave unset (e.g. DISCORD_HANDOFF_CHANNEL). */
    omitEnv?: string[];
    fragmentDelayMs?: number;
    logLines?: string[];
    /** The local service answers through this OpenAI-compatible backend. */
    llm?: { baseUrl: string };
    /** DISCORD_API_URL from the started fake (default: its REST base). */
    apiUrl?: (fake: FakeDiscord) => string;
    /** Core's clock (default Date.now). */
    now?: () => number;
    /** Adds to the fake before it starts (e.g. other servers, which READY may list). */
    prepare?: (fake: FakeDiscord) => void;
  } = {},
): Promise<DiscordE2E> {
  const tmp = tempDir('discord-e2e-');
  const serviceRequests: ServiceRequest[] = [];
  const svc = await startTestService({
    dir: tmp.dir,
    fragmentDelayMs: opts.fragmentDelayMs ?? 2,
    ...(opts.llm ? { llm: opts.llm } : {}),
    prepare: (service) => {
      service.app.addHook('preHandler', async (req) => {
        const body = Buffer.isBuffer(req.body) ? { bytes: req.body.length } : req.body;
        serviceRequests.push({ method: req.method, url: req.url, body, at: Date.now() });
      });
    },
  });
  const fake = new FakeDiscord(opts.fake);
  const general = fake.addChannel('general');
  const handoff = fake.addChannel('handoff');
  const adminRole = fake.addRole('bridge-admins');
  const agentRole = fake.addRole('agents');
  const admin = fake.addMember('alan-admin', [adminRole]);
  const user = fake.addMember('ada', []);
  const agent = fake.addMember('agent-smith', [agentRole]);
  // The handoff channel is private, as a real one is: @everyone may not view it, the agents role
  // and the bot may. Its "members" (handoff agents) are those who can view it.
  const view = VIEW_CHANNEL.toString();
  fake.setOverwrites(handoff.id, [
    { id: fake.guildId, type: 0, allow: '0', deny: view },
    { id: agentRole, type: 0, allow: view, deny: '0' },
    { id: fake.botUser.id, type: 1, allow: view, deny: '0' },
  ]);
  opts.prepare?.(fake);
  await fake.start();
  const env: Record<string, string> = {
    ...inProcessEnv(svc, tmp.dir),
    DISCORD_TOKEN: fake.token,
    DISCORD_APPLICATION_ID: fake.applicationId,
    DISCORD_GUILD_ID: fake.guildId,
    DISCORD_API_URL: opts.apiUrl ? opts.apiUrl(fake) : fake.apiUrl,
    DISCORD_HANDOFF_CHANNEL: handoff.id,
    DISCORD_ADMIN_ROLES: adminRole,
    ...opts.env,
  };
  for (const name of opts.omitEnv ?? []) delete env[name];
  const config = loadConfig(env);
  // With logLines the app logs everything (trace) into the array, so a test can search it for secrets.
  const sink = opts.logLines;
  const log = sink ? pino({ level: 'trace' }, { write: (line: string) => void sink.push(line) }) : silentLog;
  let app: AppHandle;
  try {
    app = await startApp(config, { log, ...(opts.now ? { now: opts.now } : {}) });
  } catch (err) {
    await fake.close();
    await svc.close();
    throw err;
  }
  const e: DiscordE2E = {
    app,
    serviceUrl: svc.url,
    serviceRequests,
    fake,
    service: svc.service,
    general,
    handoff,
    adminRole,
    agentRole,
    admin,
    user,
    agent,
    storedAnswers: svc.storedAnswers,
    async restart() {
      await e.app.close(3000);
      // The same clock: an injected one keeps its offset across the restart.
      e.app = await startApp(config, { log, ...(opts.now ? { now: opts.now } : {}) });
    },
    async close() {
      await e.app.close(3000);
      await fake.close();
      await svc.close();
      tmp.remove();
    },
  };
  return e;
}

/** Whether messages, in order, carry `answer` exactly (only whitespace at their boundaries may differ). */
export function sameAnswer(messages: FakeMessage[], answer: string): boolean {
  return (
    messages.length > 0 &&
    spellsAnswer(
      messages.map((m) => m.content),
      answer,
    )
  );
}

/** The bot's messages in a thread (a thread is a channel on Discord). */
export function botMessagesIn(fake: FakeDiscord, threadId: string): FakeMessage[] {
  return fake.channelMessages(threadId).filter((m) => m.author.id === fake.botUser.id);
}

/** Waits until the bot's latest messages in a thread equal the service's stored answer for `question`. */
export async function waitForAnswer(
  e: DiscordE2E,
  threadId: string,
  question: string,
  timeoutMs = 20_000,
  nth = -1,
): Promise<{ answer: string; messages: FakeMessage[] }> {
  return waitFor(
    () => {
      const stored = e.storedAnswers(question).at(nth);
      if (stored === undefined) return undefined;
      const msgs = botMessagesIn(e.fake, threadId);
      for (let start = 0; start < msgs.length; start++) {
        const tail = msgs.slice(start);
        if (sameAnswer(tail, stored)) return { answer: stored, messages: tail };
      }
      return undefined;
    },
    `the answer to "${question.slice(0, 40)}" in thread ${threadId}`,
    timeoutMs,
    e.fake.changes,
  );
}

/** Runs `/ask` and waits for its thread; returns the thread id and the interaction. */
/**
 * What Discord displays for content the bridge made inert (a user's words: link brackets escaped,
 * URLs in `<...>`): the characters the user typed.
 */
export function discordShown(content: string): string {
  return content.replace(/\\([\\[\]])/g, '$1').replace(/<(https?:\/\/[^\s<>]{1,2000})>/g, '$1');
}

export async function ask(
  e: DiscordE2E,
  question: string,
  member = e.user,
  channelId = e.general.id,
): Promise<{ threadId: string; rec: InteractionRecord }> {
  const rec = e.fake.slashCommand({
    name: 'ask',
    channelId,
    member,
    options: [{ name: 'question', type: 3, value: question }],
  });
  const threadId = await waitFor(
    () => {
      const root = e.fake
        .channelMessages(channelId)
        .find((m) => discordShown(m.content).includes(`> ${question.split('\n')[0]}`));
      return root && e.fake.channels.has(root.id) ? root.id : undefined;
    },
    `the thread of /ask ${question.slice(0, 40)}`,
    10_000,
    e.fake.changes,
  );
  return { threadId, rec };
}

/** `/handoff <reason>` typed by `member` in `channelId` (a conversation's thread, or a channel). */
export function handoffIn(e: DiscordE2E, channelId: string, reason: string, member = e.user): InteractionRecord {
  return e.fake.slashCommand({
    name: 'handoff',
    channelId,
    member,
    options: [{ name: 'reason', type: 3, value: reason }],
  });
}

/**
 * Checks an interaction was acknowledged the way Discord requires: its one callback accepted (the
 * fake refuses and records a callback later than 3 s, so none may be recorded) and sent before any
 * call on the thread it led to (the answer never waits in front of the acknowledgement).
 */
export function expectAcknowledged(e: DiscordE2E, rec: InteractionRecord, threadId?: string): void {
  expect(e.fake.lateCallbacks.filter((l) => l.interactionId === rec.id)).toEqual([]);
  expect(rec.callbacks).toHaveLength(1);
  const callback = e.fake.calls.findIndex(
    (c) => c.path.startsWith(`/interactions/${rec.id}/`) && c.status >= 200 && c.status < 300,
  );
  expect(callback).toBeGreaterThanOrEqual(0);
  if (threadId === undefined) return;
  const firstInThread = e.fake.calls.findIndex((c) => c.path.includes(`/${threadId}`));
  expect(firstInThread).toBeGreaterThan(callback);
}

/** The latest ephemeral or public response text of an interaction. */
export function responseText(e: DiscordE2E, rec: InteractionRecord): string {
  return e.fake
    .responsesOf(rec)
    .map((m) =>
      [
        shownText(m),
        ...m.embeds.map(
          (x) =>
            `${x.title ?? ''} ${x.description ?? ''} ${(x.fields ?? []).map((f) => `${f.name}: ${f.value}`).join(' ')}`,
        ),
      ].join('\n'),
    )
    .join('\n');
}

/**
 * `/analytics` as an admin runs it in the general channel: the reply's text once it shows the
 * handoff figures, and the chart spec of the PNG attached to it.
 */
export async function analyticsOf(e: DiscordE2E): Promise<{ text: string; spec: ChartSpec }> {
  const figures = e.fake.slashCommand({ name: 'analytics', channelId: e.general.id, member: e.admin });
  await waitFor(() => /Handoffs:/.test(responseText(e, figures)), 'the figures', 30_000, e.fake.changes);
  const chart = await waitFor(
    () => e.fake.responsesOf(figures).find((m) => m.attachments.some((a) => a.data)),
    'the chart',
    30_000,
    e.fake.changes,
  );
  const spec = chartSpecOf(chart.attachments.find((a) => a.data)!.data!);
  if (!spec) throw new Error('the /analytics chart carries no chart spec');
  return { text: responseText(e, figures), spec };
}

/** How many times discord.js held a request back or met a 429 (the app's Discord runtime counts them). */
export function discordRateLimitEvents(e: DiscordE2E): number {
  const runtime = e.app.surfaces.find((s) => s.surface.name === 'discord') as unknown as
    | { rateLimitEvents?: () => number }
    | undefined;
  if (!runtime?.rateLimitEvents) throw new Error('the app runs no Discord surface');
  return runtime.rateLimitEvents();
}
