/**
 * Security of the Slack surface through the whole app: replayed (older than 5 minutes) or forged
 * requests are refused with 401 and cause nothing; admin-only commands, buttons and forms are
 * refused for everyone not in SLACK_ADMIN_USERS, with a clear ephemeral message, and change nothing.
 */
import { button, buttons } from '../../../fakes/slack-blocks';
import type { FakeMessage } from '../../../fakes/fake-slack';
import { ADMIN, startSlackE2E } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';

const SIX_MINUTES_S = 6 * 60;

describe('Slack e2e security', () => {
  const e = useStarted(() => startSlackE2E({ fragmentDelayMs: 2 }));

  /** Count of user questions the chatbot service has stored (any session). */
  const questionsStored = (): number =>
    (e.service.context.db.prepare(`SELECT COUNT(*) AS n FROM messages WHERE role = 'user'`).get() as { n: number }).n;
  const sessionsStored = (): number =>
    (e.service.context.db.prepare(`SELECT COUNT(*) AS n FROM sessions`).get() as { n: number }).n;

  /** A marker request handled after the ones under test: once it is answered, theirs would have been too. */
  async function barrier(channel: string): Promise<void> {
    await e.driver.command('/ask', 'help', { user: 'U0USER1', channel });
    const usage = await waitFor(
      () => e.fake.ephemerals.find((m) => m.channel === channel),
      `the barrier in ${channel}`,
    );
    expect(usage.text).toMatch(/\/ask/);
  }

  describe('replays and forgeries', () => {
    test('a correctly signed /ask, event and click older than 5 minutes are refused with 401 and cause nothing', async () => {
      const callsBefore = e.fake.calls.length;
      const questionsBefore = questionsStored();
      const sessionsBefore = sessionsStored();
      const old = Math.floor(Date.now() / 1000) - SIX_MINUTES_S;

      const cmd = await e.driver.command(
        '/ask',
        'Replayed question about Austin',
        { user: 'U0USER1', channel: 'C0REPLAY' },
        { timestamp: old },
      );
      expect(cmd.status).toBe(401);
      const dm = await e.driver.event(
        {
          type: 'message',
          channel: 'D0REPLAY',
          channel_type: 'im',
          user: 'U0USER1',
          text: 'Replayed DM about Denver',
          ts: `${old}.000100`,
        },
        { timestamp: old },
      );
      expect(dm.status).toBe(401);
      const click = await e.driver.interaction(
        {
          type: 'block_actions',
          user: { id: ADMIN, name: 'admin' },
          team: { id: e.fake.team },
          channel: { id: 'C0REPLAY' },
          actions: [
            {
              action_id: 'bridge:listing.delete.confirm:0',
              value: JSON.stringify({ a: 'listing.delete.confirm', v: 'id:1' }),
            },
          ],
        },
        { timestamp: old },
      );
      expect(click.status).toBe(401);
      // From the future, and with a body changed after signing: refused too.
      const future = await e.driver.command(
        '/ask',
        'From the future',
        { channel: 'C0REPLAY' },
        { timestamp: Math.floor(Date.now() / 1000) + SIX_MINUTES_S },
      );
      expect(future.status).toBe(401);
      const forged = await e.driver.command(
        '/ask',
        'Forged',
        { channel: 'C0REPLAY' },
        { secret: 'not-the-signing-secret' },
      );
      expect(forged.status).toBe(401);
      const unsigned = await e.driver.command('/ask', 'Unsigned', { channel: 'C0REPLAY' }, { signature: '' });
      expect(unsigned.status).toBe(401);

      await barrier('C0REPLAYBARRIER');
      const since = e.fake.calls.slice(callsBefore);
      // Nothing reached Slack for the replays (only the barrier's ephemeral) and nothing reached the service.
      expect(
        since.filter((c) => JSON.stringify(c.args).includes('REPLAY') && !JSON.stringify(c.args).includes('BARRIER')),
      ).toEqual([]);
      expect(since.map((c) => c.method).filter((m) => m !== 'users.info')).toEqual(['chat.postEphemeral']);
      expect(questionsStored()).toBe(questionsBefore);
      expect(sessionsStored()).toBe(sessionsBefore);
    });

    test('the same request within 5 minutes is accepted (the clock check is not too strict)', async () => {
      const recent = Math.floor(Date.now() / 1000) - 4 * 60;
      const res = await e.driver.command(
        '/ask',
        'help',
        { user: 'U0USER1', channel: 'C0RECENT' },
        { timestamp: recent },
      );
      expect(res.status).toBe(200);
      const usage = await waitFor(() => e.fake.ephemerals.find((m) => m.channel === 'C0RECENT'), 'the usage');
      expect(usage.text).toMatch(/\/ask/);
    });
  });

  describe('admin-only commands', () => {
    const refusals: Array<[string, string]> = [
      ['/chatbot', 'show'],
      ['/chatbot', 'set Name Hacked'],
      ['/chatbot', 'edit'],
      ['/chatbot', 'models'],
      ['/chatbot', 'list'],
      ['/chatbot', 'create Intruder bot'],
      ['/analytics', ''],
      ['/analytics', '2024-01-01 2024-12-31'],
      ['/history', 'U0USER2'],
      ['/history', ''],
      ['/listing', 'create'],
      ['/listing', 'create SaleType:for_sale City:Austin'],
      ['/listing', 'update id:1 City:Nowhere'],
      ['/listing', 'delete id:1'],
    ];

    test.each(refusals)(
      '%s %s is refused for a non-admin, ephemerally, with a clear message',
      async (command, text) => {
        const channel = `C0NA${command.slice(1).toUpperCase()}${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
        const views = e.fake.views.length;
        const res = await e.driver.command(command, text, { user: 'U0USER1', channel });
        expect(res.status).toBe(200);
        const shown = await waitFor(
          () => e.fake.ephemerals.find((m) => m.channel === channel),
          `the refusal of ${command} ${text}`,
        );
        expect(shown.user).toBe('U0USER1');
        expect(shown.text).toMatch(/admins? only|only admins/i);
        // Nothing public, no form opened.
        expect(e.fake.messages.filter((m) => m.channel === channel)).toEqual([]);
        expect(e.fake.views.length).toBe(views);
      },
    );

    test('nothing the refused commands asked for happened: the chatbot keeps its name, no chatbot was created, listing 1 is still there', async () => {
      const chatbot = e.service.context.chatbots.get(e.service.chatbotId)!;
      expect(chatbot.settings.Name).not.toBe('Hacked');
      expect(e.service.context.chatbots.list({ page: 1, limit: 100 }).items.map((c) => c.settings.Name)).not.toContain(
        'Intruder bot',
      );
      const page = await e.app.client.listListings({ chatbotId: e.service.chatbotId, pageSize: 100 });
      expect(page.items.some((l) => l.id === 1)).toBe(true);
      expect(page.items.find((l) => l.id === 1)!.city).not.toBe('Nowhere');
    });

    test('an admin’s Delete button clicked by a non-admin is refused and deletes nothing', async () => {
      const before = await e.app.client.listListings({ chatbotId: e.service.chatbotId, pageSize: 100 });
      const target = before.items[0]!;
      await e.driver.command('/listing', `delete id:${target.id}`, { user: ADMIN, channel: 'C0DELCONFIRM' });
      const confirm = await waitFor(
        () =>
          e.fake.ephemerals.find(
            (m) => m.channel === 'C0DELCONFIRM' && m.user === ADMIN && buttons(m as unknown as FakeMessage).length > 0,
          ),
        'the delete confirmation',
      );
      const del = button(confirm as unknown as FakeMessage, 'Delete')!;
      expect(del).toBeDefined();
      const res = await e.driver.click(del, { channel: 'C0DELCONFIRM', messageTs: '1.000001' }, { user: 'U0USER2' });
      expect(res.status).toBe(200);
      const refusal = await waitFor(
        () => e.fake.ephemerals.find((m) => m.channel === 'C0DELCONFIRM' && m.user === 'U0USER2'),
        'the refusal of the click',
      );
      expect(refusal.text).toMatch(/only admins|admins only/i);
      const after = await e.app.client.listListings({ chatbotId: e.service.chatbotId, pageSize: 100 });
      expect(after.items.some((l) => l.id === target.id)).toBe(true);
      expect(after.total).toBe(before.total);
    });

    test('an admin’s listing form submitted by a non-admin is refused inline and creates nothing', async () => {
      const before = await e.app.client.listListings({ chatbotId: e.service.chatbotId, pageSize: 100 });
      await e.driver.command('/listing', 'create', { user: ADMIN, channel: 'C0FORMFORGE' });
      const view = await waitFor(
        () => e.fake.views.find((v) => String(v.callback_id).includes('listing.create')),
        'the create modal',
      );
      const res = await e.driver.submitView(
        view,
        {
          SaleType: 'for_sale',
          Status: 'Active',
          CurrencySymbol: '$',
          PropertyType: 'House',
          Bedrooms: '3',
          Bathrooms: '2',
          Url: 'https://example.test/intruder',
          MLSNumber: 'INTRUDER-1',
          YearBuilt: '2000',
          DaysOnMarket: '1',
          LotArea: '100',
          BuildingArea: '90',
          AreaUnit: 'Square Feet',
          ParkingSpots: '1',
          City: 'Austin',
        },
        { user: 'U0USER2' },
      );
      expect(res.status).toBe(200);
      const body = res.json as { response_action?: string; errors?: Record<string, string> };
      expect(body.response_action).toBe('errors');
      expect(Object.values(body.errors ?? {}).join(' ')).toMatch(/only admins/i);
      const after = await e.app.client.listListings({ chatbotId: e.service.chatbotId, pageSize: 100 });
      expect(after.total).toBe(before.total);
      expect(after.items.some((l) => l.mlsNumber === 'INTRUDER-1')).toBe(false);
    });

    test('the same commands work for the admin (the refusals are about who asks)', async () => {
      await e.driver.command('/chatbot', 'show', { user: ADMIN, channel: 'C0ADMINOK' });
      const shown = await waitFor(
        () => [...e.fake.ephemerals, ...e.fake.messages].find((m) => m.channel === 'C0ADMINOK'),
        'the chatbot settings for the admin',
      );
      expect(shown.text).not.toMatch(/only admins|admins only/i);
    });
  });
});
