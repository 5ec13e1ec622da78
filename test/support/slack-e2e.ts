/**
 * The whole bridge for Slack end-to-end tests: the local chatbot service (real HTTP, its own SQLite
 * file), the fake Slack Web API, and the app from src/app.ts configured through the environment
 * exactly as a deployment would be (SLACK_API_URL pointed at the fake, a SQLite state store). With
 * SLACK_E2E_MODE=oauth (slack-mode.ts) the app runs in OAuth mode and the fake's workspace installs it
 * by "Add to Slack" before the harness is handed back; the suite reads the same harness either way.
 */
import pino from 'pino';
import { startApp } from '../../src/app';
import { loadConfig } from '../../src/deployment/config';
import { inProcessEnv, startTestService, tempDir, type InProcessE2E } from './app-env';
import { FakeSlack, type FakeSlackOptions, type FakeMessage } from '../../fakes/fake-slack';
import { button, sameAnswer, shown } from '../../fakes/slack-blocks';
import { SlackDriver, waitFor } from '../../fakes/slack-requests';
import { silentLog } from './silent-log';
import { installDefaultWorkspace, modeEnv, slackE2EMode, unauthenticatedCalls } from './slack-mode';

export const SIGNING_SECRET = 'e2e-signing-secret';
export const ADMIN = 'U0ADMIN';
export const HANDOFF_CHANNEL = 'C0HANDOFF';
/** The handoff agent: a member of HANDOFF_CHANNEL. */
export const AGENT = 'U0AGENT';

export interface SlackE2E extends InProcessE2E {
  fake: FakeSlack;
  driver: SlackDriver;
  /** Every request the local chatbot service received, in order (method and path). */
  serviceCalls: Array<{ method: string; url: string }>;
  /** The app stops and starts again on the same store, service and fake (a new driver for its new port). */
  restart?(): Promise<void>;
}

export async function startSlackE2E(
  opts: {
    fake?: FakeSlackOptions;
    env?: Record<string, string>;
    fragmentDelayMs?: number;
    /** The local service answers through this OpenAI-compatible backend. */
    llm?: { baseUrl: string };
    /** Every log line (level trace) goes here, so a test can search it for secrets. */
    logLines?: string[];
    /** SLACK_API_URL from the started fake (default: its /api/ base). */
    apiUrl?: (fake: FakeSlack) => string;
    /** Core's clock (default Date.now). */
    now?: () => number;
  } = {},
): Promise<SlackE2E> {
  const tmp = tempDir('slack-e2e-');
  const serviceCalls: SlackE2E['serviceCalls'] = [];
  const svc = await startTestService({
    dir: tmp.dir,
    fragmentDelayMs: opts.fragmentDelayMs ?? 2,
    ...(opts.llm ? { llm: opts.llm } : {}),
    prepare: (service) => {
      service.app.addHook('onRequest', async (req) => {
        serviceCalls.push({ method: req.method, url: req.url });
      });
    },
  });
  const fake = await new FakeSlack({
    users: { U0USER1: 'Ada Lovelace', U0USER2: 'Grace Hopper', [ADMIN]: 'Alan Admin', [AGENT]: 'Agent Smith' },
    ...opts.fake,
  }).start();
  // The handoff channel's members are its agents (conversations.members): Agent Smith by default.
  fake.channelMembers[HANDOFF_CHANNEL] = [AGENT];
  // A suite that names its own Slack credentials (an OAuth test, another token) is run as it says.
  const mode = opts.env && 'SLACK_BOT_TOKEN' in opts.env ? 'token' : slackE2EMode();
  const env: Record<string, string> = {
    ...inProcessEnv(svc, tmp.dir),
    ...modeEnv(mode, fake),
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: opts.apiUrl ? opts.apiUrl(fake) : fake.apiUrl,
    SLACK_HANDOFF_CHANNEL: HANDOFF_CHANNEL,
    SLACK_ADMIN_USERS: ADMIN,
    ...opts.env,
  };
  const config = loadConfig(env);
  const sink = opts.logLines;
  const log = sink ? pino({ level: 'trace' }, { write: (line: string) => void sink.push(line) }) : silentLog;
  const app = await startApp(config, { log, ...(opts.now ? { now: opts.now } : {}) });
  await installDefaultWorkspace(mode, { app, fake }, SIGNING_SECRET, env);
  const driver = new SlackDriver(`${app.url}/slack/events`, SIGNING_SECRET, fake.team);
  const e: SlackE2E = {
    app,
    fake,
    driver,
    serviceCalls,
    service: svc.service,
    storedAnswers: svc.storedAnswers,
    async restart() {
      await e.app.close(3000);
      // The same clock: an injected one keeps its offset across the restart.
      e.app = await startApp(config, { log, ...(opts.now ? { now: opts.now } : {}) });
      e.driver = new SlackDriver(`${e.app.url}/slack/events`, SIGNING_SECRET, fake.team);
    },
    async close() {
      await e.app.close(3000);
      await fake.close();
      await svc.close();
      tmp.remove();
      const refused = mode === 'oauth' ? unauthenticatedCalls(fake) : [];
      if (refused.length)
        throw new Error(`Slack refused calls made without the workspace's token: ${refused.join(', ')}`);
    },
  };
  return e;
}

/** The bot's replies in a thread once the answer is final (no message still streaming or typing). */
export function answerMessages(fake: FakeSlack, channel: string, threadTs: string): FakeMessage[] {
  return fake.replies(channel, threadTs).filter((m) => m.user === fake.botUserId);
}

/** The root message /ask posted for `question` in `channel`. */
export function rootFor(fake: FakeSlack, channel: string, question: string): FakeMessage | undefined {
  return fake.channelMessages(channel).find((m) => shown(m.text).includes(`> ${question.split('\n')[0]}`));
}

/**
 * Wait for an answer in a thread to equal what the service stored for the question. `after`: how many
 * of the bot's replies the thread held before the question, so an earlier answer with the same text
 * is not taken for this one.
 */
export async function waitForAnswer(
  e: SlackE2E,
  channel: string,
  threadTs: string,
  question: string,
  timeoutMs = 20_000,
  after = 0,
): Promise<{ answer: string; messages: FakeMessage[] }> {
  return waitFor(
    () => {
      const stored = e.storedAnswers(question).at(-1);
      if (stored === undefined) return undefined;
      const msgs = answerMessages(e.fake, channel, threadTs)
        .slice(after)
        .filter((m) => !m.streaming);
      // The answer's messages are the bot's replies after the last one not part of it (none yet here).
      for (let start = 0; start < msgs.length; start++) {
        const tail = msgs.slice(start);
        if (sameAnswer(tail, stored)) return { answer: stored, messages: tail };
      }
      return undefined;
    },
    `the answer to "${question.slice(0, 40)}" in ${channel}/${threadTs}`,
    timeoutMs,
  );
}

/** `user` asks `question` in `channel` with /ask and presses "Talk to a human": the conversation's root and the ticket. */
export async function askForHuman(
  e: SlackE2E,
  user: string,
  channel: string,
  question: string,
): Promise<{ root: FakeMessage; ticket: FakeMessage }> {
  await e.driver.command('/ask', question, { user, channel });
  const root = await waitFor(() => rootFor(e.fake, channel, question), 'the conversation root');
  const answered = await waitFor(
    () => e.fake.replies(channel, root.ts).find((m) => button(m, 'Talk to a human')),
    'the answer with Talk to a human',
  );
  await e.driver.click(
    button(answered, 'Talk to a human')!,
    { channel, messageTs: answered.ts, threadTs: root.ts },
    { user },
  );
  const ticket = await waitFor(
    () => e.fake.channelMessages(HANDOFF_CHANNEL).find((m) => button(m, 'Claim')),
    'the ticket',
  );
  return { root, ticket };
}
