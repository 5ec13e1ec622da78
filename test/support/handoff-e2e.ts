/**
 * Slack end-to-end setups for handoff tests that restart the bridge mid-ticket: the same local
 * service, fake Slack and SQLite state store, a new app process-in-process on each restart (a new
 * port, so a new driver). In OAuth mode (slack-mode.ts) the fake's workspace installs the app once;
 * the installation lives in the state store, so a restarted app serves it without a new install.
 */
import { startApp, type AppHandle } from '../../src/app';
import { loadConfig, type Config } from '../../src/deployment/config';
import { inProcessEnv, startTestService, tempDir, type TestService } from './app-env';
import { FakeSlack } from '../../fakes/fake-slack';
import { ADMIN, AGENT, HANDOFF_CHANNEL, SIGNING_SECRET } from './slack-e2e';
import { SlackDriver } from '../../fakes/slack-requests';
import { silentLog } from './silent-log';
import { installDefaultWorkspace, modeEnv, slackE2EMode, unauthenticatedCalls } from './slack-mode';

export interface RestartableSlackE2E {
  fake: FakeSlack;
  svc: TestService;
  app: AppHandle;
  driver: SlackDriver;
  /** Stops the app (as a deploy would) and starts a new one on the same state store. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startRestartableSlackE2E(
  env: Record<string, string> = {},
  users: Record<string, string> = {},
  /** Core's clock (default Date.now): a test advances it and calls the sweep instead of waiting. */
  now?: () => number,
): Promise<RestartableSlackE2E> {
  const tmp = tempDir('handoff-e2e-');
  const svc = await startTestService({ dir: tmp.dir, fragmentDelayMs: 2 });
  const fake = await new FakeSlack({
    users: {
      U0USER1: 'Ada Lovelace',
      U0USER2: 'Grace Hopper',
      [ADMIN]: 'Alan Admin',
      [AGENT]: 'Agent Smith',
      ...users,
    },
  }).start();
  fake.channelMembers[HANDOFF_CHANNEL] = [AGENT];
  const mode = 'SLACK_BOT_TOKEN' in env ? 'token' : slackE2EMode();
  const fullEnv: Record<string, string> = {
    ...inProcessEnv(svc, tmp.dir),
    ...modeEnv(mode, fake),
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    SLACK_HANDOFF_CHANNEL: HANDOFF_CHANNEL,
    SLACK_ADMIN_USERS: ADMIN,
    ...env,
  };
  const config: Config = loadConfig(fullEnv);
  const log = silentLog;
  const start = async (): Promise<{ app: AppHandle; driver: SlackDriver }> => {
    const app = await startApp(config, { log, ...(now ? { now } : {}) });
    return { app, driver: new SlackDriver(`${app.url}/slack/events`, SIGNING_SECRET, fake.team) };
  };
  const first = await start();
  await installDefaultWorkspace(mode, { app: first.app, fake }, SIGNING_SECRET, fullEnv);
  const e: RestartableSlackE2E = {
    fake,
    svc,
    app: first.app,
    driver: first.driver,
    async restart() {
      await e.app.close(3000);
      const next = await start();
      e.app = next.app;
      e.driver = next.driver;
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
