/**
 * Two workspaces installed by OAuth, both answered by the deployment's default chatbot (neither has
 * connected its own): the service keeps both one's conversations under that one chatbot, with small
 * ids anyone can guess. /history in one workspace shows and lists only the conversations the bridge
 * opened for it (another's id is answered exactly as an unknown one), and /analytics counts only its
 * own, saying why the chatbot-wide figures are not shown. Once the workspace connects its own chatbot,
 * /analytics shows that chatbot's figures from the service again.
 */
import { shown } from '../../../fakes/slack-blocks';
import { waitFor, type SlackDriver } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';
import { install, startOAuthE2E, type OAuthE2E } from '../../support/slack-oauth';
import { ADMIN, rootFor, waitForAnswer } from '../../support/slack-e2e';

const SHARED_CHATBOT_NOTE =
  "This workspace uses the deployment's shared chatbot, so service-wide figures are shown only once it connects its own with /chatbot connect.";

/** The service's conversation (/v1 id: the chat session) that `question` was asked in. */
function conversationOf(e: OAuthE2E, question: string): string {
  const row = e.service.context.db
    .prepare(`SELECT session_id AS s FROM messages WHERE role = 'user' AND content = ? ORDER BY id DESC LIMIT 1`)
    .get(question) as { s: number } | undefined;
  if (!row) throw new Error(`the service has no message "${question}"`);
  return String(row.s);
}

describe('Slack OAuth e2e: workspaces sharing the default chatbot see their own conversations only', () => {
  const e = useStarted(() => startOAuthE2E());
  let a: SlackDriver;
  let b: SlackDriver;
  const conv = { a: '', a2: '', b: '' };

  async function ask(d: SlackDriver, channel: string, question: string): Promise<string> {
    await d.command('/ask', question, { user: 'U0USER1', channel });
    const root = await waitFor(() => rootFor(e.fake, channel, question), `the root of "${question}"`);
    await waitForAnswer(e, channel, root.ts, question);
    return conversationOf(e, question);
  }

  /** The admin runs `command` in `channel` of `d`'s workspace; the ephemeral reply's text as Slack shows it. */
  async function adminSees(d: SlackDriver, channel: string, command: string, args: string): Promise<string> {
    const before = e.fake.ephemerals.length;
    await d.command(command, args, { user: ADMIN, channel });
    const reply = await waitFor(
      () => e.fake.ephemerals.slice(before).find((x) => x.user === ADMIN && x.channel === channel),
      `the reply to ${command} ${args} in ${channel}`,
    );
    return shown(reply.text);
  }

  /** /analytics in `channel`: the figures the progress message was replaced with. */
  async function analytics(d: SlackDriver, channel: string): Promise<string> {
    await d.command('/analytics', '', { user: ADMIN, channel });
    const figures = await waitFor(
      () => e.fake.messages.find((m) => m.channel === channel && /Handoffs: \d+ opened/.test(m.text)),
      `/analytics in ${channel}`,
    );
    return figures.text;
  }

  beforeAll(async () => {
    e.fake.workspaces.addChannels('T0AAA', 'C0AAA', 'C0ADMA', 'C0ADMA2');
    e.fake.workspaces.addChannels('T0BBB', 'C0BBB', 'C0ADMB');
    a = (await install(e, { team: 'T0AAA', teamName: 'Office A', user: 'U0USER1' })).driver;
    b = (await install(e, { team: 'T0BBB', teamName: 'Office B', user: 'U0USER2' })).driver;
    conv.a = await ask(a, 'C0AAA', 'Homes in Austin for A?');
    conv.b = await ask(b, 'C0BBB', 'Condos in Denver for B?');
    conv.a2 = await ask(a, 'C0AAA', 'Lofts in Boston for A?');
    // One chatbot, three conversations: the ids are the service's, small and consecutive.
    expect(new Set(Object.values(conv)).size).toBe(3);
  });

  test('/history conversation:<id of B’s> in A answers as for an unknown id; A’s own is shown', async () => {
    const other = await adminSees(a, 'C0ADMA', '/history', `conversation:${conv.b}`);
    expect(other).toBe(`No conversation has id ${conv.b}. List a user's with /history user:<id>.`);
    expect(other).not.toContain('Denver');
    // The very words an id no one has gets: nothing tells the two apart.
    const unknown = await adminSees(a, 'C0ADMA', '/history', 'conversation:999999');
    expect(other.replace(conv.b, 'X')).toBe(unknown.replace('999999', 'X'));
    // Without the option, B's id is read as a user's too, and found as neither.
    expect(await adminSees(a, 'C0ADMA', '/history', conv.b)).toBe(
      `No conversations found for user ${conv.b} (and no conversation has id ${conv.b}).`,
    );

    const own = await adminSees(a, 'C0ADMA', '/history', `conversation:${conv.a}`);
    expect(own).toMatch(new RegExp(`^Conversation ${conv.a} \\(active, 2 messages`));
    expect(own).toContain('user: Homes in Austin for A?');
    // And B sees its own, not A's.
    expect(await adminSees(b, 'C0ADMB', '/history', `conversation:${conv.b}`)).toContain('Condos in Denver for B?');
    expect(await adminSees(b, 'C0ADMB', '/history', `conversation:${conv.a}`)).toMatch(/^No conversation has id /);
  });

  test('/history lists the workspace’s own conversations only', async () => {
    const inA = await adminSees(a, 'C0ADMA', '/history', '');
    expect(inA).toMatch(/^Conversations of this workspace:/);
    const listed = (text: string) => [...text.matchAll(/^• (\S+) — /gm)].map((m) => m[1]);
    // Newest first.
    expect(listed(inA)).toEqual([conv.a2, conv.a]);
    expect(listed(await adminSees(b, 'C0ADMB', '/history', ''))).toEqual([conv.b]);
    // A user's conversations on the shared chatbot that the bridge did not open for A are not A's either.
    const chatbotId = e.service.chatbotId;
    const elsewhere = await e.app.client.v1.startConversation({ chatbotId, userId: 'U0ELSEWHERE' });
    await e.app.client.v1.sendMessage(elsewhere.id, 'Farms in Iowa, asked elsewhere?');
    expect(await adminSees(a, 'C0ADMA', '/history', 'user:U0ELSEWHERE')).toBe(
      'No conversations found for user U0ELSEWHERE.',
    );
  });

  test('/analytics in A counts A’s conversations only and says why; once A connects its own chatbot, its service figures show', async () => {
    const shared = await analytics(a, 'C0ADMA');
    expect(shared).toContain('Analytics for this workspace');
    expect(shared).toContain('Conversations: 2 (opened in this workspace)');
    expect(shared).toContain(SHARED_CHATBOT_NOTE);
    // None of the chatbot-wide overview (every workspace's): no messages, users or rates of it.
    expect(shared).not.toMatch(/Messages: |Unique users: |Resolution rate: /);
    expect(shared).toContain('Answer feedback: ');
    expect(shared).toContain('Handoffs: 0 opened');
    // B's own count is its one conversation.
    expect(await analytics(b, 'C0ADMB')).toContain('Conversations: 1 (opened in this workspace)');

    // A connects a chatbot of its own (the /chatbot connect form, checked live).
    const bot = await e.app.client.v1.createChatbot({ name: 'Office A chatbot' });
    const views = e.fake.views.length;
    await a.command('/chatbot', 'connect', { user: ADMIN, channel: 'C0ADMA' });
    const form = await waitFor(() => e.fake.views[views], 'the connect form');
    const { secretKey, sessionKey } = e.service.credentials;
    const saved = await a.submitView(
      form,
      { chatbotId: bot.id, secretKey, sessionKey, ...(bot.apiKey ? { apiKey: bot.apiKey } : {}) },
      { user: ADMIN },
    );
    expect(saved.status).toBe(200);
    await waitFor(
      () => e.fake.ephemerals.find((x) => x.channel === 'C0ADMA' && x.text.includes('Connected')),
      'the connection shown in A',
    );
    await ask(a, 'C0AAA', 'Townhouses in Austin for A’s own chatbot?');

    const own = await analytics(a, 'C0ADMA2');
    expect(own).toContain('Analytics for Office A chatbot');
    expect(own).toMatch(/Conversations: [1-9]/);
    expect(own).toMatch(/Messages: [1-9]/);
    expect(own).toMatch(/Unique users: \d/);
    expect(own).not.toContain(SHARED_CHATBOT_NOTE);
  });
});
