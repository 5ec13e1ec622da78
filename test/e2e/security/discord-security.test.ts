/**
 * Security of the Discord surface through the whole app: admin-only commands are refused,
 * ephemerally and clearly, for members without a role in DISCORD_ADMIN_ROLES (none, or another
 * role), and change nothing; and with the app logging at trace, neither DISCORD_TOKEN nor the
 * chatbot service keys appear in the logs, in any message, or in any call to (fake) Discord.
 */
import type { FakeMember, InteractionRecord } from '../../../fakes/fake-discord';
import { ask, responseText, startDiscordE2E, waitForAnswer } from '../../support/discord-e2e';
import { firstLine } from '../../support/discord-flows';
import { useStarted } from '../../support/server-setup';
import { waitFor } from '../../../fakes/wait-for';

const STRING = 3;
const DISCORD_TOKEN = 'discord-SECRET-token.Zx9Yw8Vu7Ts6';

describe('Discord e2e security', () => {
  const logLines: string[] = [];
  const e = useStarted(() => startDiscordE2E({ fragmentDelayMs: 2, logLines, fake: { token: DISCORD_TOKEN } }));

  type Opt = { name: string; type: number; value: string };
  const refused: Array<[string, string | undefined, Opt[]]> = [
    ['chatbot', 'show', []],
    [
      'chatbot',
      'set',
      [
        { name: 'field', type: STRING, value: 'Name' },
        { name: 'value', type: STRING, value: 'Hacked' },
      ],
    ],
    ['chatbot', 'edit', []],
    ['chatbot', 'models', []],
    ['chatbot', 'list', []],
    ['chatbot', 'create', [{ name: 'name', type: STRING, value: 'Intruder bot' }]],
    ['analytics', undefined, []],
    ['history', undefined, [{ name: 'id', type: STRING, value: 'someone' }]],
    ['listing', 'create', []],
    ['listing', 'update', [{ name: 'id', type: STRING, value: '1' }]],
    ['listing', 'delete', [{ name: 'id', type: STRING, value: '1' }]],
  ];

  async function firstResponse(rec: InteractionRecord, what: string): Promise<{ text: string; ephemeral: boolean }> {
    const msg = await waitFor(
      () => e.fake.responsesOf(rec).find((m) => m.content !== '' || m.embeds.length > 0),
      what,
      10_000,
      e.fake.changes,
    );
    return { text: responseText(e, rec), ephemeral: msg.ephemeral };
  }

  test.each(refused.map(([n, s, o]) => [n, s ?? '', o] as [string, string, Opt[]]))(
    '/%s %s is refused for members without an admin role, ephemerally',
    async (name, sub, options) => {
      for (const member of [e.user, e.agent] as FakeMember[]) {
        const rec = e.fake.slashCommand({
          name,
          subcommand: sub || undefined,
          options,
          channelId: e.general.id,
          member,
        });
        const shown = await firstResponse(rec, `the refusal of /${name} ${sub ?? ''}`);
        expect(shown.ephemeral).toBe(true);
        expect(shown.text).toMatch(/admins? only|only admins/i);
        // No form was opened instead.
        expect(rec.callbacks.some((c) => c.type === 9)).toBe(false);
      }
    },
  );

  test('nothing the refused commands asked for happened', async () => {
    const chatbot = e.service.context.chatbots.get(e.service.chatbotId)!;
    expect(chatbot.settings.Name).not.toBe('Hacked');
    expect(e.service.context.chatbots.list({ page: 1, limit: 100 }).items.map((c) => c.settings.Name)).not.toContain(
      'Intruder bot',
    );
    const one = e.service.context.db.prepare(`SELECT COUNT(*) AS n FROM listings WHERE id = 1`).get() as { n: number };
    expect(one.n).toBe(1);
  });

  test('no secret in the trace logs, in messages, or in calls to Discord', async () => {
    const q = 'Homes for rent in Denver?';
    const { threadId } = await ask(e, q);
    const { messages } = await waitForAnswer(e, threadId, q);
    expect(firstLine(messages[0]!)).toMatch(/^I found \d+ homes for rent in Denver:$/);
    const admin = e.fake.slashCommand({
      name: 'chatbot',
      subcommand: 'show',
      channelId: e.general.id,
      member: e.admin,
    });
    await firstResponse(admin, 'the settings for the admin');
    // A malformed packet (logged as a warning), handled before the command that follows it.
    e.fake.dispatch('INTERACTION_CREATE', null);
    const bad = e.fake.slashCommand({
      name: 'listing',
      subcommand: 'show',
      options: [{ name: 'id', type: STRING, value: '987654' }],
      channelId: e.general.id,
      member: e.admin,
    });
    await firstResponse(bad, 'the unknown listing');
    await e.app.bridge.conversations.idle();

    const secrets = {
      DISCORD_TOKEN,
      CHATBOT_SECRET_KEY: e.service.credentials.secretKey,
      CHATBOT_SESSION_KEY: e.service.credentials.sessionKey,
      CHATBOT_API_KEY: e.service.credentials.apiKey,
    };
    const logs = logLines.join('');
    expect(logs).toContain('dropped a malformed gateway packet');
    expect(logs).toContain('chatbot-bridge ready');
    const calls = e.fake.calls.map((c) =>
      JSON.stringify({ method: c.method, path: c.path, query: c.query, body: c.body }),
    );
    const leaks: string[] = [];
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.length).toBeGreaterThan(8);
      if (logs.includes(secret))
        leaks.push(`${name} in the logs: ${logLines.find((l) => l.includes(secret))!.slice(0, 400)}`);
      const call = calls.find((c) => c.includes(secret));
      if (call) leaks.push(`${name} in a Discord call: ${call.slice(0, 400)}`);
    }
    expect(leaks).toEqual([]);
  });
});
