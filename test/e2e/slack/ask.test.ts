/** /ask, thread follow-ups, mentions, DMs, redeliveries and long answers through the whole app. */
import { startSlackE2E, waitForAnswer, rootFor, answerMessages } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';
import { firstLineOf } from '../../support/slack-flows';

describe('Slack e2e: asking', () => {
  const e = useStarted(() => startSlackE2E({ fragmentDelayMs: 15 }));

  test('/healthz answers 200 once ready', async () => {
    const res = await fetch(`${e.app.url}/healthz`);
    expect(res.status).toBe(200);
  });

  test('/ask: acked within 3 s, root names the user and quotes the question, answer in its thread equals the service Answer', async () => {
    const question = 'Show me homes for sale in Austin';
    const res = await e.driver.command('/ask', question, { user: 'U0USER1', channel: 'C0ASK' });
    expect(res.status).toBe(200);
    expect(e.driver.lateAcks).toEqual([]);
    const root = await waitFor(() => rootFor(e.fake, 'C0ASK', question), 'the root');
    expect(root.text).toContain('<@U0USER1>');
    expect(root.text).toContain(`> ${question}`);
    expect(root.thread_ts).toBeUndefined();
    const { messages } = await waitForAnswer(e, 'C0ASK', root.ts, question);
    for (const m of messages) expect(m.text.length).toBeLessThanOrEqual(3000);
    // The question reached the service unchanged, and the streamed text only ever grew.
    expect(e.storedAnswers(question)).toHaveLength(1);
    for (const m of messages) {
      for (const shown of m.history) expect(m.text.startsWith(shown.replace(/ ▍$/, ''))).toBe(true);
    }
    const buttons = JSON.stringify(messages.at(-1)!.blocks);
    expect(buttons).toContain('Talk to a human');
    expect(e.fake.rateLimited).toBe(0);
  });

  test('every later message in the thread continues the same session, no mention needed', async () => {
    const question = 'Any condos in Denver?';
    await e.driver.command('/ask', question, { user: 'U0USER1', channel: 'C0FOLLOW' });
    const root = await waitFor(() => rootFor(e.fake, 'C0FOLLOW', question), 'the root');
    const first = await waitForAnswer(e, 'C0FOLLOW', root.ts, question);
    expect(firstLineOf(first.messages)).toMatch(/^I found \d+ condos in Denver:$/);
    const followUp = 'And homes for rent in Austin?';
    const res = await e.driver.event({
      type: 'message',
      channel: 'C0FOLLOW',
      channel_type: 'channel',
      user: 'U0USER1',
      text: followUp,
      ts: `${Date.now() / 1000}`,
      thread_ts: root.ts,
    });
    expect(res.status).toBe(200);
    const stored = await waitFor(() => e.storedAnswers(followUp).at(-1), 'the follow-up answer');
    const squeeze = (t: string): string => t.replace(/\s/g, '');
    const thread = await waitFor(() => {
      const msgs = answerMessages(e.fake, 'C0FOLLOW', root.ts);
      const done =
        msgs.some((m) => !m.streaming && m.text.trim() === stored.trim().slice(0, 3000).trim()) ||
        squeeze(msgs.map((m) => m.text).join('')).includes(squeeze(stored));
      return done && msgs;
    }, 'the follow-up in the thread');
    expect(squeeze(thread.map((m) => m.text).join(''))).toContain(squeeze(stored.slice(0, 3000)));
    const sessions = e.service.context.db
      .prepare(`SELECT DISTINCT session_id FROM messages WHERE role='user' AND content IN (?, ?)`)
      .all(question, followUp);
    expect(sessions).toHaveLength(1);
  });

  test('a mention starts a conversation in its thread; a DM too; retries and repeated event ids are answered once', async () => {
    const ts = `${Math.floor(Date.now() / 1000)}.000777`;
    const text = 'hello, homes in Austin under 600000?';
    const event = {
      type: 'app_mention',
      channel: 'C0MENTION',
      user: 'U0USER2',
      text: `<@${e.fake.botUserId}> ${text}`,
      ts,
    };
    const first = await e.driver.event(event);
    const retry = await e.driver.event(event, { eventId: first.eventId, retryNum: 1 });
    const again = await e.driver.event(event, { eventId: first.eventId });
    expect([first.status, retry.status, again.status]).toEqual([200, 200, 200]);
    // Slack also delivers the same message as a message.channels event: still one answer.
    await e.driver.event({
      type: 'message',
      channel: 'C0MENTION',
      channel_type: 'channel',
      user: 'U0USER2',
      text: event.text,
      ts,
    });
    const { answer } = await waitForAnswer(e, 'C0MENTION', ts, text);
    expect(answer.length).toBeGreaterThan(0);
    expect(e.storedAnswers(text)).toHaveLength(1);

    const dmTs = `${Math.floor(Date.now() / 1000)}.000888`;
    const dmText = 'Anything for rent in Denver?';
    await e.driver.event({
      type: 'message',
      channel: 'D0DM1',
      channel_type: 'im',
      user: 'U0USER2',
      text: dmText,
      ts: dmTs,
    });
    const dm = await waitForAnswer(e, 'D0DM1', dmTs, dmText);
    expect(firstLineOf(dm.messages)).toMatch(/^I found \d+ homes for rent in Denver:$/);
    expect(e.storedAnswers(dmText)).toHaveLength(1);
    expect(e.fake.rateLimited).toBe(0);
  });

  test('a forged signature is refused with 401 and causes no Slack call', async () => {
    const before = e.fake.calls.length;
    const res = await e.driver.command(
      '/ask',
      'forged question',
      { channel: 'C0FORGED' },
      { secret: 'not-the-secret' },
    );
    const old = await e.driver.command(
      '/ask',
      'replayed question',
      { channel: 'C0FORGED' },
      { timestamp: Math.floor(Date.now() / 1000) - 600 },
    );
    expect(res.status).toBe(401);
    expect(old.status).toBe(401);
    // Give a wrongly accepted request every chance to show: a signed command right after is processed.
    await e.driver.command('/ask', 'signed question', { channel: 'C0FORGED2' });
    const signed = await waitFor(() => rootFor(e.fake, 'C0FORGED2', 'signed question'), 'the signed root');
    expect(signed).toMatchObject({ channel: 'C0FORGED2', user: e.fake.botUserId });
    expect(e.fake.calls.slice(before).some((c) => c.args.channel === 'C0FORGED')).toBe(false);
    expect(e.storedAnswers('forged question')).toHaveLength(0);
  });

  test('a 9,000-character answer is split exactly into messages of at most 3,000 characters', async () => {
    const question = 'Give me the long answer: all listings please';
    await e.driver.command('/ask', question, { user: 'U0USER1', channel: 'C0LONG' });
    const root = await waitFor(() => rootFor(e.fake, 'C0LONG', question), 'the root');
    const { answer, messages } = await waitForAnswer(e, 'C0LONG', root.ts, question, 30_000);
    expect(answer.length).toBeGreaterThanOrEqual(9000);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    for (const m of messages) expect(m.text.length).toBeLessThanOrEqual(3000);
    expect(
      messages
        .map((m) => m.text)
        .join('')
        .replace(/\s+/g, ''),
    ).toBe(answer.replace(/\s+/g, ''));
    expect(e.fake.rateLimited).toBe(0);
  });
});
