/**
 * No secret appears in logs or messages. The app runs with known, distinctive secret values and a
 * pino logger at level trace writing to a buffer; a few commands, answers and failures (GetSession
 * dropped, ClientAsk 500, service refusals, bad input, a forged request, a malformed payload, a 429)
 * are driven through Slack; then no secret string may appear in the captured logs, nor in any
 * argument of any call the bridge made to (fake) Slack, messages and ephemerals included.
 */
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startApp } from '../../../src/app';
import { loadConfig } from '../../../src/deployment/config';
import { buildLocalService } from '../../../src/local-service';
import { tempDir } from '../../support/app-env';
import { drop, status } from '../../support/fake-chatbot-server';
import { useStarted } from '../../support/server-setup';
import { FakeSlack } from '../../../fakes/fake-slack';
import { SlackDriver, waitFor } from '../../../fakes/slack-requests';
import { startServiceProxy } from '../faults/service-proxy';

const SECRETS = {
  CHATBOT_SECRET_KEY: 'sk-live-SECRET-7f3a9c2e5b1d',
  CHATBOT_SESSION_KEY: 'sess-SECRET-4e8b2a6c9d0f',
  CHATBOT_API_KEY: 'api-SECRET-1c5e9a3f7b2d',
  SLACK_BOT_TOKEN: 'xoxb-SECRET-2233445566-aabbccddeeff',
  SLACK_SIGNING_SECRET: 'signing-SECRET-99aa88bb77cc',
} as const;
const ADMIN = 'U0SECADMIN';
const CHANNEL = 'C0SECRETS';

/**
 * The local service with the secret keys, behind a proxy the test can make fail, the fake Slack with
 * the secret bot token, and the app at level trace writing every log line to `logLines`.
 */
async function startWithSecrets(logLines: string[]) {
  const tmp = tempDir('secrets-');
  const dir = tmp.dir;
  const service = buildLocalService({
    dbPath: join(dir, 'service.db'),
    fragmentDelayMs: 1,
    secretKey: SECRETS.CHATBOT_SECRET_KEY,
    sessionKey: SECRETS.CHATBOT_SESSION_KEY,
    apiKey: SECRETS.CHATBOT_API_KEY,
  });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = service.app.server.address();
  const proxy = await startServiceProxy();
  proxy.setTarget(`http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`);
  const fake = await new FakeSlack({
    botToken: SECRETS.SLACK_BOT_TOKEN,
    users: { U0USER1: 'Ada', [ADMIN]: 'Alan' },
  }).start();
  const config = loadConfig({
    ...SECRETS,
    CHATBOT_API_URL: proxy.url,
    CHATBOT_ID: service.chatbotId,
    SLACK_API_URL: fake.apiUrl,
    SLACK_ADMIN_USERS: ADMIN,
    SLACK_HANDOFF_CHANNEL: 'C0SECHANDOFF',
    STATE_URL: `sqlite:${join(dir, 'bridge.db')}`,
    PORT: '0',
    LOG_LEVEL: 'trace',
  });
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  const app = await startApp(config, { log: pino({ level: 'trace' }, sink) });
  const driver = new SlackDriver(`${app.url}/slack/events`, SECRETS.SLACK_SIGNING_SECRET, fake.team);
  return {
    proxy,
    fake,
    app,
    driver,
    async close() {
      await app.close(3000);
      await fake.close();
      await proxy.close();
      await service.app.close();
      tmp.remove();
    },
  };
}

describe('security: no secret in logs or messages', () => {
  const logLines: string[] = [];
  const s = useStarted(() => startWithSecrets(logLines));

  const shownIn = (channel: string): string[] => [
    ...s.fake.messages.filter((m) => m.channel === channel).map((m) => `${m.text} ${JSON.stringify(m.blocks)}`),
    ...s.fake.ephemerals.filter((m) => m.channel === channel).map((m) => `${m.text} ${JSON.stringify(m.blocks)}`),
  ];

  async function commandShows(
    command: string,
    text: string,
    user: string,
    channel: string,
    what: RegExp,
  ): Promise<void> {
    const res = await s.driver.command(command, text, { user, channel });
    expect(res.status).toBe(200);
    const shown = await waitFor(
      () => shownIn(channel).find((s) => what.test(s)),
      `${command} ${text} to show ${String(what)}`,
      20_000,
    );
    expect(shown).toMatch(what);
  }

  test('commands, answers and failures leak no secret into logs, messages or any Slack call', async () => {
    const { proxy, fake, app, driver } = s;
    // A normal answer.
    await commandShows('/ask', 'Homes for sale in Austin?', 'U0USER1', `${CHANNEL}1`, /Talk to a human/);
    // GetSession dropped on every try: the user is told, with Retry.
    proxy.server.on('POST', '/chat/Chatbot/GetSession', drop);
    await commandShows('/ask', 'Condos in Miami?', 'U0USER1', `${CHANNEL}2`, /could not open a chat session/i);
    // No handlers: the route falls through to forwarding again.
    proxy.server.on('POST', '/chat/Chatbot/GetSession');
    // ClientAsk answering 500.
    proxy.scriptAsk(status(500, { error: 'boom' }));
    await commandShows('/ask', 'Lofts in Denver?', 'U0USER1', `${CHANNEL}3`, /failed to answer|chatbot service/i);
    // The service refusing (unknown listing), bad input, admin-only refusal, /v1 calls.
    await commandShows('/listing', 'show id:987654', ADMIN, `${CHANNEL}4`, /987654/);
    await commandShows('/chatbot', 'set Temperature warm', ADMIN, `${CHANNEL}5`, /Temperature/);
    await commandShows('/chatbot', 'show', 'U0USER1', `${CHANNEL}6`, /admins/i);
    await commandShows('/chatbot', 'show', ADMIN, `${CHANNEL}7`, /.+/);
    await commandShows('/history', 'U0USER1', ADMIN, `${CHANNEL}8`, /.+/);
    await commandShows('/analytics', '', ADMIN, `${CHANNEL}9`, /.+/);
    // The figures and the chart come after the first ephemeral: wait for them before going on.
    const figures = await waitFor(
      () => fake.messages.find((m) => m.channel === `${CHANNEL}9` && /Messages|conversations/i.test(m.text)),
      'the analytics figures',
      20_000,
    );
    expect(figures.text).toMatch(/Conversations: \d+/);
    await commandShows('/chatbot', 'create Leak Check Bot', ADMIN, `${CHANNEL}10`, /API key of/);
    // Slack rate limiting a post.
    fake.force429('chat.postMessage', 1, 1);
    await commandShows('/listings', 'city:Austin', 'U0USER1', `${CHANNEL}11`, /Austin/);
    // A forged request and a malformed signed one.
    expect((await driver.command('/ask', 'forged', { channel: `${CHANNEL}12` }, { secret: 'wrong' })).status).toBe(401);
    expect((await driver.json(null)).status).toBe(400);
    expect((await driver.form({ payload: 'null' })).status).toBe(400);
    await app.bridge.conversations.idle();

    // The new chatbot's own key was shown to the admin who created it (by design), and only there.
    const created = fake.ephemerals.find((m) => m.channel === `${CHANNEL}10` && /API key of/.test(m.text))!;
    expect(created.user).toBe(ADMIN);
    const newKey = /API key of [^:]+: (\S+)/.exec(created.text)![1]!;

    const logs = logLines.join('');
    expect(logLines.length).toBeGreaterThan(20);
    // The logs really are at trace level and do carry errors (so the check below has something to look at).
    expect(logs).toMatch(/"level":10|"level":20/);
    expect(logs).toMatch(/"level":(40|50)/);
    const slackTraffic = fake.calls.map((c) =>
      JSON.stringify({ method: c.method, args: c.args, response: c.response }),
    );
    const shown = [
      ...fake.messages.map((m) => `${m.text} ${JSON.stringify(m.blocks)}`),
      ...fake.ephemerals.map((m) => `${m.text} ${JSON.stringify(m.blocks)}`),
    ];
    const leaks: string[] = [];
    for (const [name, secret] of Object.entries(SECRETS)) {
      if (logs.includes(secret))
        leaks.push(`${name} in the logs: ${logLines.find((l) => l.includes(secret))!.slice(0, 400)}`);
      const call = slackTraffic.find((c) => c.includes(secret));
      if (call) leaks.push(`${name} in a Slack call: ${call.slice(0, 400)}`);
      if (shown.some((s) => s.includes(secret))) leaks.push(`${name} in a message`);
    }
    if (logs.includes(newKey))
      leaks.push(`the new chatbot’s api_key in the logs: ${logLines.find((l) => l.includes(newKey))!.slice(0, 600)}`);
    const elsewhere = shown.filter((s) => s.includes(newKey));
    if (elsewhere.length !== 1) leaks.push(`the new chatbot’s api_key shown ${elsewhere.length} times`);
    expect(leaks).toEqual([]);
  }, 120_000);
});
