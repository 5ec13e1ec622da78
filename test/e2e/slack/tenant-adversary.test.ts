/**
 * A hostile workspace on a deployment many workspaces install (OAuth). Workspace A is the operator's
 * office: it connected the environment's chatbot with its keys. Workspace B installed the app and
 * connected nothing, so the deployment's shared chatbot (the operator's) answers it. B's admin (a
 * workspace admin, as users.info says) tries every command, button and form that changes the chatbot
 * or reads the operator's account, and replays A's own buttons and forms through B's installation.
 * Each is refused with the one line, the chatbot service sees no write call, and nothing of A's (its
 * addresses, its conversations) is shown. A keeps every right it had.
 */
import { shown } from '../../../fakes/slack-blocks';
import { waitFor, type SlackDriver } from '../../../fakes/slack-requests';
import { encodeKey } from '../../../src/core/listings/find';
import { useStarted } from '../../support/server-setup';
import { rootFor, waitForAnswer } from '../../support/slack-e2e';
import { pressTalkToHuman } from '../../support/slack-flows';
import { install, startOAuthE2E } from '../../support/slack-oauth';

const REFUSAL =
  "This workspace uses the deployment's shared chatbot; connect your own with /chatbot connect to change its settings and listings.";
const A_ADMIN = 'U0AADMIN';
const B_ADMIN = 'U0BADMIN';
const OPS = 'ops@operator.example';
const LEADS = 'leads@operator.example';

/** What changes the chatbot service's state: settings, listings, chatbots. */
const WRITE = /^(POST|PUT|PATCH|DELETE) \/(chat\/Chatbot\/(Edit|RealEstate(Create|Update|Delete))|v1\/chatbots)/;

describe('Slack OAuth: a workspace on the shared chatbot cannot touch the operator’s chatbot or another workspace', () => {
  const e = useStarted(() => startOAuthE2E());
  let a: SlackDriver;
  let b: SlackDriver;
  let listingId = '';
  let convA = '';
  let rootA = '';

  const calls = (from: number): string[] => e.serviceCalls.slice(from).map((c) => `${c.method} ${c.url}`);
  const writes = (from: number): string[] => calls(from).filter((c) => WRITE.test(c));

  /** `user` runs `command args` in `channel` of `d`'s workspace; its reply (ephemeral or not) as Slack shows it. */
  async function reply(d: SlackDriver, user: string, channel: string, command: string, args: string): Promise<string> {
    const before = { ephemerals: e.fake.ephemerals.length, messages: e.fake.messages.length };
    await d.command(command, args, { user, channel });
    const got = await waitFor(
      () =>
        e.fake.ephemerals.slice(before.ephemerals).find((x) => x.user === user && x.channel === channel) ??
        e.fake.messages.slice(before.messages).find((x) => x.channel === channel),
      `the reply to ${command} ${args} in ${channel}`,
    );
    return shown(`${got.text}\n${JSON.stringify(got.blocks)}`);
  }

  /** The replies `user` got in `channel` since `before`, as one text. */
  const repliesSince = (before: number, user: string): string =>
    e.fake.ephemerals
      .slice(before)
      .filter((x) => x.user === user)
      .map((x) => `${x.text}\n${JSON.stringify(x.blocks)}`)
      .join('\n');

  /** A form `user` of workspace A opens, as the fake recorded it. */
  async function formOpenedInA(args: string): Promise<Record<string, unknown>> {
    const views = e.fake.views.length;
    await a.command(args.startsWith('listing') ? '/listing' : '/chatbot', args.replace(/^(listing|chatbot) /, ''), {
      user: A_ADMIN,
      channel: 'C0ADMA',
    });
    return waitFor(() => e.fake.views[views], `the form of ${args} in A`);
  }

  beforeAll(async () => {
    e.fake.workspaceAdmins.add(A_ADMIN);
    e.fake.workspaceAdmins.add(B_ADMIN);
    e.fake.workspaces.addChannels('T0AAA', 'C0AAA', 'C0ADMA');
    e.fake.workspaces.addChannels('T0BBB', 'C0BBB', 'C0ADMB');
    e.fake.channelMembers.C0ADMA = ['U0AGENT'];
    a = (await install(e, { team: 'T0AAA', teamName: 'Operator', user: A_ADMIN })).driver;
    b = (await install(e, { team: 'T0BBB', teamName: 'Stranger', user: B_ADMIN })).driver;

    // A connects the environment's own chatbot, proven by its keys: the operator's office.
    const form = await formOpenedInA('chatbot connect');
    const { secretKey, sessionKey, apiKey } = e.service.credentials;
    const saved = await a.submitView(
      form,
      {
        chatbotId: e.service.chatbotId,
        secretKey,
        sessionKey,
        ...(apiKey ? { apiKey } : {}),
        handoffChannel: 'C0ADMA',
      },
      { user: A_ADMIN },
    );
    expect(saved.status).toBe(200);
    await waitFor(
      () => e.fake.ephemerals.find((x) => x.channel === 'C0ADMA' && x.text.includes('Connected')),
      'A connected',
    );
    // The operator keeps its rights: its addresses are set from A.
    expect(await reply(a, A_ADMIN, 'C0ADMA', '/chatbot', `set TalkToHumanEmail ${OPS}`)).toContain(
      `Set TalkToHumanEmail to ${OPS}`,
    );
    expect(await reply(a, A_ADMIN, 'C0ADMA', '/chatbot', `set EmailForDailyLeads ${LEADS}`)).toContain(
      'Set EmailForDailyLeads',
    );

    const row = e.service.context.db
      .prepare('SELECT id FROM listings WHERE chatbot_id = ? ORDER BY id LIMIT 1')
      .get(e.service.chatbotId) as { id: number };
    listingId = String(row.id);

    await a.command('/ask', 'Homes in Austin for the operator?', { user: 'U0USER1', channel: 'C0AAA' });
    const root = await waitFor(() => rootFor(e.fake, 'C0AAA', 'Homes in Austin for the operator?'), 'A’s root');
    await waitForAnswer(e, 'C0AAA', root.ts, 'Homes in Austin for the operator?');
    const conv = e.service.context.db
      .prepare(`SELECT session_id AS s FROM messages WHERE role = 'user' AND content = ? ORDER BY id DESC LIMIT 1`)
      .get('Homes in Austin for the operator?') as { s: number };
    convA = String(conv.s);
    rootA = root.ts;
  });

  /** Every value in A's part of the store, as one text. */
  async function partOfA(): Promise<string> {
    const keys = await e.app.store.keys('t:slack:T0AAA:');
    return (await Promise.all(keys.map(async (k) => JSON.stringify(await e.app.store.get(k))))).join('\n');
  }

  /** The chat sessions a question was asked in (the service's own record). */
  const sessionsOf = (text: string): string[] =>
    (
      e.service.context.db
        .prepare(`SELECT DISTINCT session_id AS s FROM messages WHERE role = 'user' AND content LIKE ?`)
        .all(`%${text}%`) as Array<{ s: number }>
    ).map((r) => String(r.s));

  /** B's own question in its own channel, answered: the events sent before it have been handled. */
  async function settledInB(question: string): Promise<void> {
    await b.command('/ask', question, { user: 'U0BUSER', channel: 'C0BBB' });
    const root = await waitFor(() => rootFor(e.fake, 'C0BBB', question), 'B’s root');
    await waitForAnswer(e, 'C0BBB', root.ts, question);
    await e.app.bridge.conversations.idle();
  }

  /** Every command that changes the operator's chatbot or lists its account (`<id>`: a listing of it). */
  const refusedCommands: Array<[string, string]> = [
    ['/chatbot', 'set EmailForDailyLeads thief@elsewhere.example'],
    ['/chatbot', 'set TalkToHumanEmail thief@elsewhere.example'],
    ['/chatbot', 'set Temperature 1'],
    ['/chatbot', 'edit'],
    ['/chatbot', 'create Stolen'],
    ['/chatbot', 'list'],
    ['/listing', 'create SaleType:for_sale City:Nowhere ParkingSpots:1'],
    ['/listing', 'create'],
    ['/listing', 'update id:<id> Status:Sold'],
    ['/listing', 'update id:<id>'],
    ['/listing', 'delete id:<id>'],
  ];

  test.each(refusedCommands)(
    'B’s admin: %s %s is refused in one line, nothing reaches the service',
    async (command, args) => {
      const from = e.serviceCalls.length;
      const views = e.fake.views.length;
      const text = await reply(b, B_ADMIN, 'C0ADMB', command, args.replace('<id>', listingId));
      expect(text.split('\n')[0]).toBe(REFUSAL);
      // No write, no form, and not even a read of the operator's chatbots for /chatbot list.
      expect(writes(from)).toEqual([]);
      expect(calls(from).filter((c) => c.includes('/v1/chatbots'))).toEqual([]);
      expect(e.fake.views.length).toBe(views);
    },
  );

  test('B’s admin replays A’s listing buttons (Delete, Edit) through B’s installation: refused, nothing written', async () => {
    const value = encodeKey({ keyType: 'ListingId', key: listingId });
    for (const action of ['listing.delete.confirm', 'listing.edit']) {
      const from = e.serviceCalls.length;
      const before = e.fake.ephemerals.length;
      const views = e.fake.views.length;
      await b.click(
        { action_id: `bridge:${action}:0`, value: JSON.stringify({ a: action, v: value }) },
        { channel: 'C0ADMB', messageTs: '1700000000.000100' },
        { user: B_ADMIN },
      );
      await waitFor(() => repliesSince(before, B_ADMIN).includes(REFUSAL), `the refusal of ${action}`);
      expect(writes(from)).toEqual([]);
      expect(e.fake.views.length).toBe(views);
    }
    // The listing is still there.
    const still = e.service.context.db.prepare('SELECT id FROM listings WHERE id = ?').get(Number(listingId));
    expect(still).toBeDefined();
  });

  test('B’s admin submits A’s own settings and listing forms through B’s installation: nothing written', async () => {
    const edit = await formOpenedInA('chatbot edit');
    const create = await formOpenedInA('listing create');
    const update = await formOpenedInA(`listing update id:${listingId}`);
    const forged = (view: Record<string, unknown>): Record<string, unknown> => ({
      ...view,
      private_metadata: String(view.private_metadata).replace('T0AAA', 'T0BBB').replace('C0ADMA', 'C0ADMB'),
    });
    const submissions: Array<[Record<string, unknown>, Record<string, string>]> = [
      [edit, { EmailForDailyLeads: 'thief@elsewhere.example', TalkToHumanEmail: 'thief@elsewhere.example' }],
      [create, { SaleType: 'for_sale', City: 'Nowhere', ParkingSpots: '1' }],
      [update, { Status: 'Sold' }],
    ];
    for (const [view, values] of submissions) {
      for (const submitted of [view, forged(view)]) {
        const from = e.serviceCalls.length;
        const before = e.fake.ephemerals.length;
        const res = await b.submitView(submitted, values, { user: B_ADMIN });
        expect(res.status).toBe(200);
        if (submitted !== view)
          await waitFor(() => repliesSince(before, B_ADMIN).includes(REFUSAL), 'the refusal of the form');
        expect(writes(from)).toEqual([]);
      }
    }
    // The operator's addresses are the operator's still.
    const show = await reply(a, A_ADMIN, 'C0ADMA', '/chatbot', 'show');
    expect(show).toContain(OPS);
    expect(show).not.toContain('thief@');
  });

  test('B’s admin sees the shared chatbot without the operator’s addresses, and none of A’s conversations', async () => {
    const from = e.serviceCalls.length;
    const show = await reply(b, B_ADMIN, 'C0ADMB', '/chatbot', 'show');
    expect(show).not.toContain('operator.example');
    expect(show).toContain("the deployment's (not shown)");
    const hours = await reply(b, B_ADMIN, 'C0ADMB', '/chatbot', 'hours');
    expect(hours).not.toContain('operator.example');

    const other = await reply(b, B_ADMIN, 'C0ADMB', '/history', `conversation:${convA}`);
    expect(other.split('\n')[0]).toBe(`No conversation has id ${convA}. List a user's with /history user:<id>.`);
    expect(await reply(b, B_ADMIN, 'C0ADMB', '/history', 'user:U0USER1')).not.toContain(convA);
    // The service was never asked for A's conversation.
    expect(calls(from).filter((c) => c.includes(`/v1/conversations/${convA}`))).toEqual([]);
    expect(writes(from)).toEqual([]);
  });

  test('what a guest may do: ask, look listings up, list models; the operator keeps every right', async () => {
    expect(await reply(b, B_ADMIN, 'C0ADMB', '/listing', `show id:${listingId}`)).not.toContain(REFUSAL);
    expect(await reply(b, B_ADMIN, 'C0ADMB', '/chatbot', 'models')).toContain('Models');
    const from = e.serviceCalls.length;
    expect(await reply(a, A_ADMIN, 'C0ADMA', '/chatbot', 'set Temperature 1')).toContain('Set Temperature to 1');
    expect(writes(from)).toEqual([expect.stringMatching(/Chatbot\/Edit/)]);
    expect(await reply(a, A_ADMIN, 'C0ADMA', '/chatbot', 'list')).toContain('Chatbots:');
  });

  test('B’s users post in A’s thread (a reply, a mention, a DM naming its ts): A’s conversation is not continued, nothing of A’s shown', async () => {
    const before = await partOfA();
    const postsInA = e.fake.messages.filter((m) => m.channel === 'C0AAA').length;
    const ts = (n: number): string => `${Math.floor(Date.now() / 1000)}.00${n}000`;
    const reply = 'Forward me this thread, please';
    const mention = 'What did the operator ask here?';
    const direct = 'Continue the operator’s chat';
    await b.event({
      type: 'message',
      channel: 'C0AAA',
      channel_type: 'channel',
      user: 'U0BUSER',
      text: reply,
      ts: ts(1),
      thread_ts: rootA,
    });
    await b.event({
      type: 'app_mention',
      channel: 'C0AAA',
      user: 'U0BUSER',
      text: `<@${e.fake.botUserId}> ${mention}`,
      ts: ts(2),
      thread_ts: rootA,
    });
    await b.event({
      type: 'message',
      channel: 'D0BDM',
      channel_type: 'im',
      user: 'U0BUSER',
      text: direct,
      ts: ts(3),
      thread_ts: rootA,
    });
    await settledInB('Homes in Boston for the stranger?');
    // A plain reply in a thread B has no conversation in is nobody's question.
    expect(sessionsOf(reply)).toEqual([]);
    // What B asks is B's own conversation: never A's chat session.
    for (const text of [mention, direct]) expect(sessionsOf(text)).not.toContain(convA);
    // A's part of the store is as it was: no turn of B's in A's transcript.
    const after = await partOfA();
    for (const text of [reply, mention, direct]) expect(after).not.toContain(text);
    expect(after.length).toBeGreaterThanOrEqual(before.length);
    // Nothing of A's conversation was shown to B.
    const toB = e.fake.messages
      .filter((m) => m.channel === 'D0BDM' || (m.channel === 'C0AAA' && m.thread_ts === rootA && m.ts !== rootA))
      .map((m) => m.text)
      .join('\n');
    expect(toB).not.toContain('Homes in Austin for the operator?');
    expect(postsInA).toBeGreaterThan(0);
  });

  test('App Home: B’s admin sees none of A’s tickets, and A’s ticket buttons pressed from B’s Home or a B channel change nothing', async () => {
    await pressTalkToHuman(e.fake, a, 'U0USER1', 'C0AAA', 'Call me about Austin, operator side?');
    const ticket = await waitFor(
      async () =>
        (await e.app.bridge.handoffs.allTickets()).find(
          (t) => t.userPlace.workspace === 'T0AAA' && t.status === 'open',
        ),
      'A’s ticket',
    );
    const homes = e.fake.homeViews.length;
    await b.event({
      type: 'app_home_opened',
      user: B_ADMIN,
      channel: 'D0BHOME',
      tab: 'home',
      event_ts: `${Date.now() / 1000}`,
    });
    const home = await waitFor(() => e.fake.homeViews.slice(homes).find((v) => v.user === B_ADMIN), 'B’s App Home');
    expect(JSON.stringify(home.view)).not.toContain(ticket.id);
    expect(JSON.stringify(home.view)).not.toContain('Call me about Austin');
    for (const action of ['handoff.claim', 'handoff.close']) {
      const from = e.serviceCalls.length;
      const value = JSON.stringify({ a: action, v: ticket.id });
      // From B's App Home (a view, no channel) and from one of B's channels.
      await b.interaction({
        type: 'block_actions',
        user: { id: B_ADMIN, username: 'b', name: 'b', team_id: 'T0BBB' },
        api_app_id: 'A0APP',
        token: 'legacy',
        container: { type: 'view', view_id: 'V0BHOME' },
        view: { id: 'V0BHOME', type: 'home', team_id: 'T0BBB' },
        trigger_id: 'trig-home',
        team: { id: 'T0BBB', domain: 'fake' },
        actions: [
          { type: 'button', action_id: `bridge:${action}:0`, block_id: 'b', value, action_ts: `${Date.now() / 1000}` },
        ],
      });
      await b.click(
        { action_id: `bridge:${action}:0`, value },
        { channel: 'C0ADMB', messageTs: '1700000000.000200' },
        { user: B_ADMIN },
      );
      await e.app.bridge.conversations.idle();
      expect(writes(from)).toEqual([]);
    }
    const still = (await e.app.bridge.handoffs.allTickets()).find((t) => t.id === ticket.id);
    expect(still?.status).toBe('open');
  });
});
