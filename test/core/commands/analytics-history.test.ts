import { analyticsCommand } from '../../../src/core/commands/analytics';
import { historyCommand } from '../../../src/core/commands/history';
import { usageOf } from '../../../src/core/commands/catalogue';
import { startCommandEnv, type CommandEnv } from './support';

let env: CommandEnv;
let convId = '';
let secondId = '';
const USER = 'U-hist';

beforeAll(async () => {
  env = await startCommandEnv();
  const v1 = env.ctx.client.v1;
  const chatbotId = env.ctx.config.chatbotId;
  const c1 = await v1.startConversation({ chatbotId, userId: USER });
  await v1.sendMessage(c1.id, 'Which homes are for sale in Austin?');
  await v1.sendMessage(c1.id, 'And in Denver?');
  const c2 = await v1.startConversation({ chatbotId, userId: USER });
  await v1.sendMessage(c2.id, 'Any rentals in Miami?');
  const mine = await v1.startConversation({ chatbotId, userId: env.admin.id });
  await v1.sendMessage(mine.id, 'Hello there');
  convId = c1.id;
  secondId = c2.id;
});
afterAll(async () => {
  await env.close();
});

describe('/analytics', () => {
  test('figures as text and a PNG chart; the progress note is replaced by the result', async () => {
    const inv = await env.run(analyticsCommand, env.admin, '');
    expect(inv.replies).toHaveLength(2);
    expect(inv.replies[0]?.ephemeral).toBe(false);
    expect(inv.replies[0]?.msg.text).toMatch(/^Crunching analytics/);
    // The progress message now shows the figures: nothing says "Crunching" any more.
    const progress = [...env.surface.messages.values()].find((m) => m.versions[0]?.text.startsWith('Crunching'));
    const text = progress?.current.text ?? '';
    expect(progress?.versions.length).toBe(2);
    expect(text).not.toMatch(/Crunching/);
    // Named as people know the chatbot, not by its id.
    expect(text).toContain('Analytics for Skyline Realty Assistant');
    const result = inv.replies[1]?.msg;
    const conversations = Number(/Conversations: ([\d,]+)/.exec(text)?.[1]?.replace(/,/g, ''));
    const messages = Number(/Messages: ([\d,]+)/.exec(text)?.[1]?.replace(/,/g, ''));
    expect(conversations).toBeGreaterThanOrEqual(3);
    expect(messages).toBeGreaterThanOrEqual(8);
    expect(text).toMatch(/Unique users: [1-9]/);
    expect(text).toMatch(/Avg conversation length: [\d.]+ messages/);
    expect(text).toMatch(/Resolution rate: [\d.]+%/);
    expect(text).toMatch(/Avg response time: [\d.]+ s/);
    const file = result?.file;
    expect(file?.name).toMatch(/^analytics-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.png$/);
    expect(file?.mime).toBe('image/png');
    expect(file?.data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
    expect(file?.data.length).toBeGreaterThan(2000);
  });

  test('a range in the past has no activity', async () => {
    const inv = await env.run(analyticsCommand, env.admin, '2001-01-01 2001-01-31');
    const text = inv.texts().join('\n');
    expect(text).toContain('2001-01-01 to 2001-01-31');
    expect([...env.surface.messages.values()].some((m) => /Conversations: 0/.test(m.current.text))).toBe(true);
  });

  test('bad dates name the argument and show the usage', async () => {
    for (const [args, re] of [
      ['2024-02-30', /from: 2024-02-30 is not a calendar date/],
      ['2024-01-01 soon', /to: dates are written YYYY-MM-DD/],
      ['2024-03-01 2024-02-01', /from must be on or before to/],
    ] as const) {
      const inv = await env.run(analyticsCommand, env.admin, args);
      expect(inv.replies).toHaveLength(1);
      expect(inv.last().text).toMatch(re);
      expect(inv.last().text).toContain(usageOf('analytics'));
    }
  });

  test('admins only; help', async () => {
    const inv = await env.run(analyticsCommand, env.alice, '');
    expect(inv.last().text).toMatch(/only admins may see analytics/i);
    expect(inv.replies.some((r) => r.msg.file)).toBe(false);
    expect((await env.run(analyticsCommand, env.admin, 'help')).last().text).toBe(usageOf('analytics'));
  });
});

describe('/history', () => {
  test("a user's conversations with message counts", async () => {
    const inv = await env.run(historyCommand, env.admin, USER);
    const text = inv.last().text;
    expect(text).toContain(`Conversations of user ${USER}:`);
    expect(text).toMatch(new RegExp(`• ${convId} — active — 4 messages — \\d{4}-\\d{2}-\\d{2}`));
    expect(text).toMatch(new RegExp(`• ${secondId} — active — 2 messages`));
  });

  test('one conversation as a transcript', async () => {
    for (const args of [convId, `conversation:${convId}`]) {
      const inv = await env.run(historyCommand, env.admin, args);
      const text = inv.last().text;
      expect(text).toMatch(new RegExp(`^Conversation ${convId} \\(active, 4 messages`));
      expect(text).toContain('user: Which homes are for sale in Austin?');
      expect(text).toContain('user: And in Denver?');
      expect(text).toMatch(/\nassistant: \S/);
      expect(text.indexOf('Austin?')).toBeLessThan(text.indexOf('Denver?'));
    }
  });

  test("no argument: the invoker's own conversations", async () => {
    const inv = await env.run(historyCommand, env.admin, '');
    expect(inv.last().text).toContain(`Conversations of you (${env.admin.id})`);
    expect(inv.last().text).toMatch(/2 messages/);
  });

  test('unknown ids say so', async () => {
    const nobody = await env.run(historyCommand, env.admin, 'user:U-nobody');
    expect(nobody.last().text).toBe('No conversations found for user U-nobody.');
    const missing = await env.run(historyCommand, env.admin, 'conversation:999999');
    expect(missing.last().text).toBe("No conversation has id 999999. List a user's with /history user:<id>.");
    const either = await env.run(historyCommand, env.admin, '999999');
    expect(either.last().text).toBe('No conversations found for user 999999 (and no conversation has id 999999).');
  });

  test('admins only; bad arguments; help', async () => {
    expect((await env.run(historyCommand, env.alice, USER)).last().text).toMatch(
      /only admins may read conversation history/i,
    );
    const bad = await env.run(historyCommand, env.admin, 'session:1');
    expect(bad.last().text).toMatch(/Unknown option "session:"/);
    expect(bad.last().text).toContain(usageOf('history'));
    expect((await env.run(historyCommand, env.admin, 'help')).last().text).toBe(usageOf('history'));
  });
});
