/**
 * The two ways the bridge runs on Slack, for the end-to-end harnesses: with one `SLACK_BOT_TOKEN`
 * (the single-workspace app), or in OAuth mode, where the fake's own workspace installs the app
 * through the real "Add to Slack" trip and every request is served with the token that install got.
 * `SLACK_E2E_MODE=oauth` in the test process picks OAuth mode (jest's `slack-oauth` project sets it),
 * so the same suites prove both modes.
 */
import { randomBytes } from 'node:crypto';
import type { FakeSlack } from '../../fakes/fake-slack';
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET } from '../../fakes/fake-slack-oauth';
import { type Installable, install } from '../../fakes/slack-install';
import { waitFor } from '../../fakes/wait-for';
import { WELCOME_TEXT } from '../../src/surfaces/slack/welcome';

export type SlackE2EMode = 'token' | 'oauth';

/** The mode the test process asks for (token unless SLACK_E2E_MODE says otherwise; a typo fails loudly). */
export function slackE2EMode(): SlackE2EMode {
  const mode = process.env.SLACK_E2E_MODE ?? 'token';
  if (mode !== 'token' && mode !== 'oauth') throw new Error(`SLACK_E2E_MODE must be token or oauth, not "${mode}"`);
  return mode;
}

/** The OAuth variables (SLACK_BOT_TOKEN blanked) and a fresh STATE_ENCRYPTION_KEY. */
export function oauthEnv(key = randomBytes(32).toString('base64')): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: '',
    SLACK_CLIENT_ID: FAKE_CLIENT_ID,
    SLACK_CLIENT_SECRET: FAKE_CLIENT_SECRET,
    SLACK_STATE_SECRET: 'e2e-state-secret',
    STATE_ENCRYPTION_KEY: key,
  };
}

/** The Slack credentials of a mode: the fake's bot token, or the OAuth variables. */
export function modeEnv(mode: SlackE2EMode, fake: FakeSlack): Record<string, string> {
  return mode === 'oauth' ? oauthEnv() : { SLACK_BOT_TOKEN: fake.botToken };
}

/**
 * Who installs the fake's workspace in OAuth mode (one of its owners, as Slack asks of an installer):
 * a user no suite speaks as, so the first-steps DM and the connect card land where no suite reads.
 */
export const INSTALLER = 'U0INSTALLER';
/** Where the installer runs `/chatbot connect` (no suite's channel). */
const SETUP_CHANNEL = 'C0SETUP';

/** What the installed workspace connects: the environment's chatbot, and its handoff channel if any. */
interface DefaultOffice {
  chatbot: { chatbotId: string; secretKey: string; sessionKey: string; apiKey?: string };
  handoffChannel?: string;
}

/** The office of a harness's environment (its CHATBOT_* and SLACK_HANDOFF_CHANNEL). */
function defaultOffice(env: Record<string, string>): DefaultOffice {
  const need = (name: string): string => {
    const v = env[name];
    if (!v) throw new Error(`the default workspace's office needs ${name}`);
    return v;
  };
  return {
    chatbot: {
      chatbotId: need('CHATBOT_ID'),
      secretKey: need('CHATBOT_SECRET_KEY'),
      sessionKey: need('CHATBOT_SESSION_KEY'),
      ...(env.CHATBOT_API_KEY ? { apiKey: env.CHATBOT_API_KEY } : {}),
    },
    ...(env.SLACK_HANDOFF_CHANNEL ? { handoffChannel: env.SLACK_HANDOFF_CHANNEL } : {}),
  };
}

/**
 * OAuth mode: the fake's own workspace (the team every suite's driver signs with) installs the app by
 * "Add to Slack" and then does what the first-steps DM asks: its owner runs `/chatbot connect` with the
 * environment's chatbot and handoff channel. In OAuth mode SLACK_HANDOFF_CHANNEL names no workspace and
 * serves none (README, "Each workspace sees its own"), so without this step a suite's tickets would go
 * nowhere; with it the workspace is the office a single-workspace deployment is. Nothing of the setup
 * is still in flight when the harness is handed back. Token mode: nothing to do.
 */
export async function installDefaultWorkspace(
  mode: SlackE2EMode,
  e: Installable,
  signingSecret: string,
  env: Record<string, string>,
): Promise<void> {
  if (mode !== 'oauth') return;
  const office = defaultOffice(env);
  const { fake } = e;
  fake.workspaceOwners.add(INSTALLER);
  const { driver } = await install(e, { team: fake.team, teamName: 'Fake Team', user: INSTALLER }, signingSecret);
  await waitFor(
    () =>
      fake.messages.find(
        (m) => [INSTALLER, `D${INSTALLER}`].includes(m.channel) && m.text.includes(WELCOME_TEXT.split('\n')[0]!),
      ),
    'the installer’s first-steps DM',
  );
  const views = fake.views.length;
  await driver.command('/chatbot', 'connect', { user: INSTALLER, channel: SETUP_CHANNEL });
  const form = await waitFor(() => fake.views[views], 'the /chatbot connect form');
  const { chatbotId, secretKey, sessionKey, apiKey } = office.chatbot;
  const values: Record<string, string> = { chatbotId, secretKey, sessionKey, ...(apiKey ? { apiKey } : {}) };
  if (office.handoffChannel) values.handoffChannel = office.handoffChannel;
  const res = await driver.submitView(form, values, { user: INSTALLER });
  if (res.status !== 200 || (res.json as { errors?: unknown } | undefined)?.errors) {
    throw new Error(`the default workspace's /chatbot connect was refused: ${res.status} ${JSON.stringify(res.json)}`);
  }
  await waitFor(
    () => fake.ephemerals.find((m) => m.channel === SETUP_CHANNEL && m.text.includes('Connected')),
    'the connection shown to the installer',
  );
}

/**
 * In OAuth mode the bridge holds no token but the installed workspace's: a Web API call Slack refused
 * as unauthenticated was made without it (a default client, another workspace's token). In token
 * mode such a refusal cannot happen, so a suite that passes in both modes made none.
 */
export function unauthenticatedCalls(fake: FakeSlack): string[] {
  return fake.calls
    .filter((c) => ['invalid_auth', 'not_authed', 'token_expired', 'token_revoked'].includes(String(c.response.error)))
    .map((c) => `${c.method} (${String(c.response.error)})`);
}
