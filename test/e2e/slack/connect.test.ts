/**
 * Each workspace its own chatbot: `/chatbot connect` through signed Slack requests (the command, the
 * modal, its view_submission) on a deployment that two workspaces installed. The local service serves
 * chatbots A and B; workspace X connects A, Y connects B, and each one's questions go to its own
 * chatbot. Keys are checked live, shown back masked, and found in no Slack call, no log line and no
 * stored value.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { waitFor } from '../../../fakes/slack-requests';
import type { SlackDriver } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';
import {
  type Bot,
  chatbotThatAnswered,
  expectNoSecretIn,
  makeChatbots,
  masked,
  serviceKeys,
  storedText,
} from '../../support/connect-e2e';
import { install, type OAuthE2E, startOAuthE2E } from '../../support/slack-oauth';
import { ADMIN, rootFor, startSlackE2E, waitForAnswer } from '../../support/slack-e2e';

const OWNER_X = 'U0OWNERX';
const OWNER_Y = 'U0OWNERY';
const NOT_CONNECTED = "This workspace isn't connected to a chatbot yet. An admin can connect it with /chatbot connect.";

/** `/chatbot connect` as `user`, then its modal submitted with `values`. */
async function connect(
  e: OAuthE2E,
  driver: SlackDriver,
  who: { user: string; channel: string },
  values: Record<string, string>,
) {
  const before = e.fake.views.length;
  await driver.command('/chatbot', 'connect', who);
  const view = await waitFor(() => e.fake.views[before], 'the connect form');
  return { view, res: await driver.submitView(view, values, { user: who.user }) };
}

async function ask(e: OAuthE2E, driver: SlackDriver, channel: string, question: string): Promise<void> {
  await driver.command('/ask', question, { user: 'U0USER1', channel });
  const root = await waitFor(() => rootFor(e.fake, channel, question), `the root of "${question}"`);
  await waitForAnswer(e, channel, root.ts, question);
}

function ephemeralIn(e: OAuthE2E, channel: string, text: string) {
  return e.fake.ephemerals.find((m) => m.channel === channel && m.text.includes(text));
}

describe('Slack e2e: each workspace connects its own chatbot', () => {
  const logLines: string[] = [];
  const e = useStarted(() => startOAuthE2E({ logLines }));
  let x: SlackDriver;
  let y: SlackDriver;
  let bots: { a: Bot; b: Bot };
  const keys = () => serviceKeys(e);

  beforeAll(async () => {
    e.fake.workspaces.addChannels('T0XXX', 'C0XGEN', 'C0XDESK');
    e.fake.workspaces.addChannels('T0YYY', 'C0YGEN', 'C0YDESK');
    e.fake.workspaceOwners.add(OWNER_X);
    e.fake.workspaceAdmins.add(OWNER_Y);
    e.fake.channelMembers.C0XDESK = ['U0AGENTX'];
    x = (await install(e, { team: 'T0XXX', teamName: 'Office X', user: OWNER_X })).driver;
    y = (await install(e, { team: 'T0YYY', teamName: 'Office Y', user: OWNER_Y })).driver;
    const [a, b] = (await makeChatbots(e, 'Chatbot A', 'Chatbot B')) as [Bot, Bot];
    bots = { a, b };
  });

  test('a member who is no admin is refused, and no form opens', async () => {
    const views = e.fake.views.length;
    await x.command('/chatbot', 'connect', { user: 'U0USER1', channel: 'C0XGEN' });
    const refusal = await waitFor(() => ephemeralIn(e, 'C0XGEN', 'for admins only'), 'the refusal');
    expect(refusal.user).toBe('U0USER1');
    expect(e.fake.views.length).toBe(views);
  });

  test('bad credentials are refused naming what failed; nothing is saved', async () => {
    const wrongSecret = await connect(
      e,
      x,
      { user: OWNER_X, channel: 'C0XGEN' },
      { chatbotId: bots.a.id, secretKey: 'sk_not-the-right-secret-0000', sessionKey: keys().sessionKey },
    );
    const errors = (wrongSecret.res.json as { response_action: string; errors: Record<string, string> }).errors;
    expect(errors.secretKey).toContain('GetSession');
    // The form opened with no key in it, and the refusal does not repeat the key typed.
    expect(JSON.stringify(wrongSecret.view)).not.toContain(keys().secretKey);
    expect(JSON.stringify(errors)).not.toContain('sk_not-the-right-secret-0000');

    const wrongSession = await connect(
      e,
      x,
      { user: OWNER_X, channel: 'C0XGEN' },
      { chatbotId: bots.a.id, secretKey: keys().secretKey, sessionKey: 'ssk_wrong-session-key-0000' },
    );
    expect((wrongSession.res.json as { errors: Record<string, string> }).errors.sessionKey).toContain('RealEstateList');

    const otherKey = await connect(
      e,
      x,
      { user: OWNER_X, channel: 'C0XGEN' },
      { chatbotId: bots.a.id, ...keys(), apiKey: bots.b.apiKey },
    );
    expect((otherKey.res.json as { errors: Record<string, string> }).errors.apiKey).toContain(bots.a.id);

    // Y's channel, picked in X: this workspace's token cannot see it.
    const foreign = await connect(
      e,
      x,
      { user: OWNER_X, channel: 'C0XGEN' },
      { chatbotId: bots.a.id, ...keys(), handoffChannel: 'C0YDESK' },
    );
    expect((foreign.res.json as { errors: Record<string, string> }).errors.handoffChannel).toContain('cannot post');
    expect(await e.app.store.keys('tenant:connection:')).toEqual([]);
  });

  test('X connects A and Y connects B: each one’s questions go to its own chatbot, keys shown masked', async () => {
    const a = await connect(
      e,
      x,
      { user: OWNER_X, channel: 'C0XGEN' },
      { chatbotId: bots.a.id, ...keys(), apiKey: bots.a.apiKey, handoffChannel: 'C0XDESK' },
    );
    expect(a.res.status).toBe(200);
    const shownA = await waitFor(() => ephemeralIn(e, 'C0XGEN', 'Connected'), 'the connection shown in X');
    const body = JSON.stringify(shownA);
    const secret = keys().secretKey;
    expect(body).toContain(masked(secret));
    expect(body).toContain(masked(bots.a.apiKey));
    expect(body).toContain('Office hours');
    expect(body).toContain('Time zone');
    await connect(
      e,
      y,
      { user: OWNER_Y, channel: 'C0YGEN' },
      { chatbotId: bots.b.id, ...keys(), apiKey: bots.b.apiKey },
    );
    await waitFor(() => ephemeralIn(e, 'C0YGEN', 'Connected'), 'the connection shown in Y');

    await ask(e, x, 'C0XGEN', 'Homes in Austin for X?');
    await ask(e, y, 'C0YGEN', 'Homes in Austin for Y?');
    expect(chatbotThatAnswered(e, 'Homes in Austin for X?')).toBe(bots.a.id);
    expect(chatbotThatAnswered(e, 'Homes in Austin for Y?')).toBe(bots.b.id);
  });

  test('a ticket of X goes to the handoff channel X connected', async () => {
    await x.command('/handoff', 'a person please', { user: 'U0USER1', channel: 'C0XGEN' });
    const ticket = await waitFor(() => e.fake.channelMessages('C0XDESK')[0], 'the ticket in X’s channel');
    expect(ticket.text).toContain('a person please');
  });

  test('/chatbot show in X names X’s own chatbot, its keys masked', async () => {
    await x.command('/chatbot', 'show', { user: OWNER_X, channel: 'C0XGEN' });
    const shown = await waitFor(() => ephemeralIn(e, 'C0XGEN', 'Chatbot A'), 'the /chatbot show card');
    const body = JSON.stringify(shown);
    expect(body).toContain('This workspace');
    expect(body).toContain(masked(bots.a.apiKey));
    expect(body).toContain(`id ${bots.a.id}`);
  });

  test('no key reaches a Slack call, a log line or the store', async () => {
    // The keys connected, and the wrong ones typed in the refused forms.
    const secrets = [
      keys().secretKey,
      keys().sessionKey,
      bots.a.apiKey,
      bots.b.apiKey,
      'sk_not-the-right-secret-0000',
      'ssk_wrong-session-key-0000',
    ];
    expect((await e.app.store.keys('tenant:connection:')).sort()).toEqual([
      'tenant:connection:slack:T0XXX',
      'tenant:connection:slack:T0YYY',
    ]);
    const dir = dirname(e.dbPath);
    const files = readdirSync(dir).map((f) => [`file ${f}`, readFileSync(`${dir}/${f}`).toString('latin1')]);
    expectNoSecretIn(secrets, {
      'Slack calls': JSON.stringify(e.fake.calls.map((c) => c.args)),
      log: logLines.join('\n'),
      store: await storedText(e),
      ...Object.fromEntries(files),
    });
  });

  test('the log scrubber learned the keys that passed the live check, never the refused ones typed', async () => {
    const before = logLines.length;
    // The app's own logger: whatever a line quotes goes through the deployment's scrubber.
    e.app.log.warn(`probe ${bots.a.apiKey} ${bots.b.apiKey} sk_not-the-right-secret-0000 ssk_wrong-session-key-0000`);
    const probe = logLines.slice(before).join('\n');
    expect(probe).not.toContain(bots.a.apiKey);
    expect(probe).not.toContain(bots.b.apiKey);
    // A tenant admin's refused form teaches the deployment-wide scrubber nothing.
    expect(probe).toContain('sk_not-the-right-secret-0000');
    expect(probe).toContain('ssk_wrong-session-key-0000');
    logLines.splice(before);
  });

  test('disconnect removes Y’s keys: Y is answered by the deployment’s chatbot again', async () => {
    await y.command('/chatbot', 'disconnect', { user: OWNER_Y, channel: 'C0YGEN' });
    await waitFor(() => ephemeralIn(e, 'C0YGEN', 'Disconnected'), 'the disconnect reply');
    expect(await e.app.store.keys('tenant:connection:slack:T0YYY')).toEqual([]);
    await ask(e, y, 'C0YGEN', 'Condos after disconnect?');
    expect(chatbotThatAnswered(e, 'Condos after disconnect?')).toBe(e.service.chatbotId);
    // A thread B answered goes on with the deployment's chatbot, in a session of its own.
    const root = rootFor(e.fake, 'C0YGEN', 'Homes in Austin for Y?');
    if (!root) throw new Error('no thread of Y');
    const answered = e.fake.replies('C0YGEN', root.ts).length;
    await y.event({
      type: 'message',
      channel: 'C0YGEN',
      channel_type: 'channel',
      user: 'U0USER1',
      text: 'And in Dallas, after disconnect?',
      ts: `${Date.now() / 1000}`,
      thread_ts: root.ts,
    });
    await waitForAnswer(e, 'C0YGEN', root.ts, 'And in Dallas, after disconnect?', 20_000, answered);
    expect(chatbotThatAnswered(e, 'And in Dallas, after disconnect?')).toBe(e.service.chatbotId);
    await ask(e, x, 'C0XGEN', 'Condos in X still?');
    expect(chatbotThatAnswered(e, 'Condos in X still?')).toBe(bots.a.id);
  });

  test('a workspace that uninstalls takes its keys and its own chatbot’s settings with it; another’s stay', async () => {
    // X sets its chatbot A. Y, answered by the deployment's shared chatbot since it disconnected, may
    // not change that one (the operator's): the settings the operator applied to it stand for it here.
    await x.command('/chatbot', 'set Temperature 1', { user: OWNER_X, channel: 'C0XGEN' });
    await y.command('/chatbot', 'set Temperature 1', { user: OWNER_Y, channel: 'C0YGEN' });
    await waitFor(() => ephemeralIn(e, 'C0YGEN', "deployment's shared chatbot; connect your own"), 'Y refused');
    const applied = (chatbotId: string) => e.app.store.get(`settings:applied:${chatbotId}`);
    await e.app.store.set(`settings:applied:${e.service.chatbotId}`, { Temperature: 1 });
    await waitFor(async () => (await applied(bots.a.id)) !== undefined, 'A’s settings applied');
    expect(await e.app.store.keys('tenant:connection:slack:T0XXX')).toHaveLength(1);
    e.fake.workspaces.revoke('T0XXX');
    expect((await x.event({ type: 'app_uninstalled' })).status).toBe(200);
    await waitFor(
      async () => ((await e.app.store.keys('tenant:connection:slack:T0XXX')).length === 0 ? true : undefined),
      'X’s connection deleted',
    );
    expect(await applied(bots.a.id)).toBeUndefined();
    expect(await applied(e.service.chatbotId)).toEqual({ Temperature: 1 });
  });
});

describe('Slack e2e: a deployment without a default chatbot', () => {
  const e = useStarted(() => startOAuthE2E({ env: { CHATBOT_SECRET_KEY: '', CHATBOT_SESSION_KEY: '' } }));

  test('a workspace that connected nothing gets the one line; once connected it is answered', async () => {
    e.fake.workspaces.addChannels('T0NEW', 'C0NEW');
    e.fake.workspaceOwners.add(OWNER_X);
    const { driver } = await install(e, { team: 'T0NEW', teamName: 'New office', user: OWNER_X });
    await driver.command('/ask', 'Anything for sale?', { user: 'U0USER1', channel: 'C0NEW' });
    const line = await waitFor(() => ephemeralIn(e, 'C0NEW', 'connected'), 'the not-connected line');
    expect(line.text).toBe(NOT_CONNECTED);
    expect(e.fake.channelMessages('C0NEW')).toEqual([]);

    const bot = await e.app.client.v1.createChatbot({ name: 'Office chatbot' });
    await connect(e, driver, { user: OWNER_X, channel: 'C0NEW' }, { chatbotId: bot.id, ...serviceKeys(e) });
    await waitFor(() => ephemeralIn(e, 'C0NEW', 'Connected'), 'connected');
    await ask(e, driver, 'C0NEW', 'Anything for sale now?');
    expect(chatbotThatAnswered(e, 'Anything for sale now?')).toBe(bot.id);
  });
});

describe('Slack e2e: one workspace (SLACK_BOT_TOKEN) without STATE_ENCRYPTION_KEY', () => {
  const e = useStarted(() => startSlackE2E());

  test('connect is refused naming STATE_ENCRYPTION_KEY, and no form opens', async () => {
    await e.driver.command('/chatbot', 'connect', { user: ADMIN, channel: 'C0KEYLESS' });
    const told = await waitFor(() => e.fake.ephemerals.find((m) => m.channel === 'C0KEYLESS'), 'the refusal');
    expect(told.text).toContain('STATE_ENCRYPTION_KEY');
    expect(told.text).toContain('openssl rand -base64 32');
    expect(e.fake.views).toEqual([]);
  });
});
