/**
 * Slack's AI-app surface through the whole app: the assistant pane (thread started: prompts and a
 * greeting; a question: status before the first fragment and cleared, title, exact answer, same
 * session for a follow-up), answer feedback (recorded once, changed, a negative vote offers the
 * handoff) and /analytics counting the votes.
 */
import { tenantFor, tenantStore } from '../../../src/state/tenant-store';
import { assistantThreadContext } from '../../../src/surfaces/slack/assistant';
import { FeedbackStore } from '../../../src/state/feedback-store';
import type { FakeMessage, SlackCall } from '../../../fakes/fake-slack';
import { ADMIN, HANDOFF_CHANNEL, rootFor, startSlackE2E, waitForAnswer } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';
import { firstLineOf } from '../../support/slack-flows';

interface FeedbackElement {
  type: 'feedback_buttons';
  action_id: string;
  positive_button: { text: { text: string }; value: string };
  negative_button: { text: { text: string }; value: string };
}

function feedbackOf(m: FakeMessage): FeedbackElement | undefined {
  for (const b of m.blocks as Array<{ type?: string; elements?: Array<{ type?: string }> }>) {
    if (b.type !== 'context_actions') continue;
    const el = b.elements?.find((x) => x.type === 'feedback_buttons');
    if (el) return el as unknown as FeedbackElement;
  }
  return undefined;
}

/** The feedback id a rating button carries (`up:<id>` inside the JSON value). */
function feedbackId(el: FeedbackElement): string {
  return /up:([A-Za-z0-9_-]+)/.exec(el.positive_button.value)![1]!;
}

let seq = 0;
const tsNow = (): string => `${Math.floor(Date.now() / 1000)}.${String(100000 + ++seq)}`;

describe('Slack e2e: the assistant pane and answer feedback', () => {
  const e = useStarted(() => startSlackE2E({ fragmentDelayMs: 10 }));

  const startThread = async (channel: string, user = 'U0USER1'): Promise<string> => {
    const thread = tsNow();
    const res = await e.driver.event({
      type: 'assistant_thread_started',
      assistant_thread: {
        user_id: user,
        channel_id: channel,
        thread_ts: thread,
        context: { channel_id: 'C0VIEWING', team_id: e.fake.team, enterprise_id: null },
      },
      event_ts: thread,
    });
    expect(res.status).toBe(200);
    return thread;
  };

  const pressFeedback = (
    el: FeedbackElement,
    which: 'positive' | 'negative',
    where: { channel: string; ts: string; thread: string },
    user = 'U0USER1',
  ) =>
    e.driver.interaction({
      type: 'block_actions',
      user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: e.fake.team },
      api_app_id: 'A0APP',
      token: 'legacy',
      container: {
        type: 'message',
        message_ts: where.ts,
        channel_id: where.channel,
        is_ephemeral: false,
        thread_ts: where.thread,
      },
      trigger_id: `trig-fb-${++seq}`,
      team: { id: e.fake.team, domain: 'fake' },
      channel: { id: where.channel, name: 'directmessage' },
      message: { type: 'message', ts: where.ts, thread_ts: where.thread },
      response_url: 'http://127.0.0.1:9/response-url-unused',
      actions: [
        {
          type: 'feedback_buttons',
          action_id: el.action_id,
          block_id: 'fb',
          value: which === 'positive' ? el.positive_button.value : el.negative_button.value,
          action_ts: String(Date.now() / 1000),
        },
      ],
    });

  const ephemeralsTo = (user: string, channel: string) =>
    e.fake.ephemerals.filter((x) => x.user === user && x.channel === channel);
  /** The bot's first message in an assistant thread: the greeting (the chatbot's, or the WelcomeMessage set below). */
  const greetingIn = async (channel: string, thread: string): Promise<string> =>
    (await waitFor(() => e.fake.replies(channel, thread).find((m) => m.user === e.fake.botUserId), 'the greeting'))
      .text;
  /** What /chatbot set replied in C0SETTINGS. */
  const setReply = async (name: string): Promise<string> => {
    const reply = await waitFor(
      () => e.fake.channelMessages('C0SETTINGS').find((m) => m.text.startsWith(`Set ${name} `)),
      `${name} applied`,
    );
    return reply.text;
  };

  test('assistant_thread_started: 1 to 4 suggested prompts from the listings and a greeting in the thread', async () => {
    const thread = await startThread('D0PANE1');
    const shown = await waitFor(() => e.fake.assistantThread('D0PANE1', thread)?.prompts, 'the suggested prompts');
    expect(shown.length).toBeGreaterThanOrEqual(1);
    expect(shown.length).toBeLessThanOrEqual(4);
    for (const p of shown) {
      expect(p.title.length).toBeGreaterThan(0);
      expect(p.message.length).toBeGreaterThan(0);
    }
    // Built from what the service offers: the cities of its listings.
    const listings = await e.app.client.listListings({ chatbotId: e.service.chatbotId, page: 1, pageSize: 50 });
    const cities = [...new Set(listings.items.map((l) => l.city).filter((c): c is string => Boolean(c)))];
    expect(cities.length).toBeGreaterThan(0);
    for (const p of shown) expect(cities.some((c) => p.message.includes(c))).toBe(true);
    const greeting = await waitFor(
      () => e.fake.replies('D0PANE1', thread).find((m) => m.user === e.fake.botUserId),
      'the greeting',
    );
    expect(greeting.text).toMatch(/real-estate assistant/i);
    expect(
      e.fake.callsOf('assistant.threads.setSuggestedPrompts').every((c) => c.status === 200 && c.response.ok === true),
    ).toBe(true);
  });

  test('the applied SuggestedMessage (one prompt per line) and WelcomeMessage open a new thread', async () => {
    await e.driver.command('/chatbot', 'set SuggestedMessage Homes for sale in Austin?\nRentals in Denver?', {
      user: ADMIN,
      channel: 'C0SETTINGS',
    });
    expect(await setReply('SuggestedMessage')).toMatch(/^Set SuggestedMessage to .*Homes for sale in Austin\?/);
    await e.driver.command('/chatbot', 'set WelcomeMessage Welcome to Acme Realty! Ask away.', {
      user: ADMIN,
      channel: 'C0SETTINGS',
    });
    expect(await setReply('WelcomeMessage')).toMatch(/^Set WelcomeMessage to .*Welcome to Acme Realty! Ask away\./);
    const thread = await startThread('D0PANE2');
    const shown = await waitFor(() => e.fake.assistantThread('D0PANE2', thread)?.prompts, 'the suggested prompts');
    expect(shown.map((p) => p.message)).toEqual(['Homes for sale in Austin?', 'Rentals in Denver?']);
    const greeting = await waitFor(
      () => e.fake.replies('D0PANE2', thread).find((m) => m.user === e.fake.botUserId),
      'the greeting',
    );
    expect(greeting.text).toBe('Welcome to Acme Realty! Ask away.');
  });

  test('a question in the thread: status before the first fragment then cleared, title, exact answer, same session for a follow-up', async () => {
    const channel = 'D0PANE3';
    const thread = await startThread(channel, 'U0USER2');
    expect(await greetingIn(channel, thread)).toMatch(/real-estate assistant|Welcome to Acme Realty/i);
    const question = 'Which homes are for sale in Austin with 3 bedrooms and a garden, please?';
    await e.driver.event({
      type: 'message',
      channel,
      channel_type: 'im',
      user: 'U0USER2',
      text: question,
      ts: tsNow(),
      thread_ts: thread,
    });
    const { messages } = await waitForAnswer(e, channel, thread, question);
    const statuses = await waitFor(() => {
      const set = e.fake.assistantThread(channel, thread)?.statuses;
      return set?.some((s) => s.status === '') && set;
    }, 'the status cleared');
    expect(statuses[0]!.status.length).toBeGreaterThan(0);
    expect(statuses[0]!.loading_messages?.length).toBeGreaterThan(0);
    expect(statuses.at(-1)!.status).toBe('');
    // The status went up before the answer's first message (stream start or post) in the thread.
    const inThread = (c: SlackCall): boolean => c.args.channel === channel && c.args.thread_ts === thread;
    const firstAnswerCall = e.fake.callIndex(
      (c) =>
        (c.method === 'chat.startStream' ||
          (c.method === 'chat.postMessage' && c.args.text !== e.fake.replies(channel, thread)[0]!.text)) &&
        inThread(c),
    );
    const statusCall = e.fake.callIndex(
      (c) => c.method === 'assistant.threads.setStatus' && c.args.channel_id === channel && c.args.status !== '',
    );
    expect(statusCall).toBeGreaterThanOrEqual(0);
    expect(statusCall).toBeLessThan(firstAnswerCall);
    // The first question titles the thread (at most 60 characters).
    const title = await waitFor(() => e.fake.assistantThread(channel, thread)?.title, 'the title');
    expect(title.length).toBeLessThanOrEqual(60);
    expect(question.startsWith(title.replace(/…$/, ''))).toBe(true);
    // The answer carries the rating control.
    expect(feedbackOf(messages.at(-1)!)).toBeDefined();

    const followUp = 'And what about rentals in Austin?';
    await e.driver.event({
      type: 'message',
      channel,
      channel_type: 'im',
      user: 'U0USER2',
      text: followUp,
      ts: tsNow(),
      thread_ts: thread,
    });
    const followed = await waitForAnswer(e, channel, thread, followUp);
    // The same conversation: the follow-up keeps the first question's "3 bedrooms".
    expect(firstLineOf(followed.messages)).toMatch(/^I found \d+ homes for rent in Austin with 3\+ bedrooms:$/);
    const sessions = e.service.context.db
      .prepare(`SELECT DISTINCT session_id FROM messages WHERE role='user' AND content IN (?, ?)`)
      .all(question, followUp);
    expect(sessions).toHaveLength(1);
    // Titled once: the follow-up did not rename the thread.
    expect(e.fake.callsOf('assistant.threads.setTitle').filter((c) => c.args.channel_id === channel)).toHaveLength(1);
  });

  test('assistant_thread_context_changed: the channel the user has open is kept for the thread (in the store)', async () => {
    const channel = 'D0PANE5';
    const thread = await startThread(channel);
    const place = { surface: 'slack' as const, workspace: e.fake.team, channel, thread };
    expect((await waitFor(() => assistantThreadContext(e.app.store, place), 'the thread record')).context.channel).toBe(
      'C0VIEWING',
    );
    await e.driver.event({
      type: 'assistant_thread_context_changed',
      assistant_thread: {
        user_id: 'U0USER1',
        channel_id: channel,
        thread_ts: thread,
        context: { channel_id: 'C0OTHER', team_id: e.fake.team },
      },
      event_ts: tsNow(),
    });
    const changed = await waitFor(async () => {
      const kept = await assistantThreadContext(e.app.store, place);
      return kept?.context.channel !== 'C0VIEWING' && kept;
    }, 'the new context');
    expect(changed.context).toMatchObject({ channel: 'C0OTHER' });
  });

  test('a channel thread (/ask) shows the status while the answer is on its way, then clears it', async () => {
    const question = 'Show me homes for rent in Miami';
    await e.driver.command('/ask', question, { user: 'U0USER1', channel: 'C0STATUS' });
    const root = await waitFor(() => rootFor(e.fake, 'C0STATUS', question), 'the root');
    const { messages } = await waitForAnswer(e, 'C0STATUS', root.ts, question);
    expect(firstLineOf(messages)).toMatch(/^I found \d+ homes for rent in Miami:$/);
    const statuses = await waitFor(() => {
      const s = e.fake.assistantThread('C0STATUS', root.ts)?.statuses;
      return s && s.at(-1)?.status === '' ? s : undefined;
    }, 'the status set and cleared');
    expect(statuses[0]!.status.length).toBeGreaterThan(0);
  });

  test('feedback on Slack: recorded once per person, changed by the other button, a negative vote offers the handoff; /analytics counts it', async () => {
    const channel = 'D0PANE4';
    const thread = await startThread(channel);
    expect(await greetingIn(channel, thread)).toMatch(/real-estate assistant|Welcome to Acme Realty/i);
    const question = 'Any condos in Denver?';
    await e.driver.event({
      type: 'message',
      channel,
      channel_type: 'im',
      user: 'U0USER1',
      text: question,
      ts: tsNow(),
      thread_ts: thread,
    });
    const { messages } = await waitForAnswer(e, channel, thread, question);
    const last = messages.at(-1)!;
    const el = feedbackOf(last)!;
    expect(el.positive_button.text.text.length).toBeGreaterThan(0);
    const id = feedbackId(el);
    const feedback = new FeedbackStore(tenantStore(e.app.store, tenantFor('slack', e.fake.team)));
    const where = { channel, ts: last.ts, thread };

    expect((await pressFeedback(el, 'positive', where)).status).toBe(200);
    const thanks = await waitFor(() => ephemeralsTo('U0USER1', channel).at(-1), 'the ephemeral thanks');
    expect(thanks.text).toBe('Thanks for your feedback: 👍 recorded.');
    expect((await feedback.votesOn(id)).map((v) => v.vote)).toEqual(['positive']);
    // Tied to the answer: thread, message and the service's AnswerID.
    const rated = await waitFor(
      () => feedback.answer(id).then((a) => (a?.answerId !== undefined ? a : undefined)),
      'the rated answer',
    );
    expect(rated).toMatchObject({ surface: 'slack', channel, thread, message: last.ts });
    const answerRow = e.service.context.db
      .prepare(`SELECT id FROM messages WHERE role='assistant' ORDER BY id DESC`)
      .all() as Array<{ id: number }>;
    expect(answerRow.map((r) => String(r.id))).toContain(String(rated.answerId));

    await pressFeedback(el, 'positive', where);
    const again = await waitFor(
      () => ephemeralsTo('U0USER1', channel).find((x) => /already rated/.test(x.text)),
      'already rated',
    );
    expect(again.text).toBe('You already rated this answer 👍.');
    expect(await feedback.votesOn(id)).toHaveLength(1);

    await pressFeedback(el, 'negative', where);
    const offer = await waitFor(
      () => ephemeralsTo('U0USER1', channel).find((x) => /now 👎/.test(x.text)),
      'the changed vote and the handoff offer',
    );
    expect(JSON.stringify(offer.blocks)).toContain('Talk to a human');
    expect((await feedback.votesOn(id)).map((v) => v.vote)).toEqual(['negative']);

    // Another person's vote counts separately.
    await pressFeedback(el, 'positive', where, 'U0USER2');
    const votes = await waitFor(async () => {
      const cast = await feedback.votesOn(id);
      return cast.length === 2 && cast;
    }, 'the second vote');
    expect(votes.map((v) => v.vote).sort()).toEqual(['negative', 'positive']);

    // The offered "Talk to a human" opens a ticket in the handoff channel.
    const actions = (
      offer.blocks as Array<{
        type: string;
        elements?: Array<{ action_id: string; value?: string; text?: { text: string } }>;
      }>
    ).find((b) => b.type === 'actions')!;
    const talk = actions.elements!.find((x) => x.text?.text === 'Talk to a human')!;
    await e.driver.click(
      { action_id: talk.action_id, value: talk.value! },
      { channel, messageTs: last.ts, threadTs: thread },
    );
    const ticket = await waitFor(() => e.fake.channelMessages(HANDOFF_CHANNEL)[0], 'a ticket in the handoff channel');
    expect(ticket.text).toMatch(/^Waiting since \d\d:\d\d UTC/);
    expect(ticket.text).toContain('Any condos in Denver?');

    // /analytics: the votes of the period, with the positive share (this run's votes only: 1 up, 1 down at least).
    await e.driver.command('/analytics', '', { user: ADMIN, channel: 'C0ANALYTICS' });
    const shown = await waitFor(
      () => e.fake.messages.find((m) => m.channel === 'C0ANALYTICS' && /Answer feedback:/.test(m.text)),
      '/analytics with feedback',
    );
    const m = /Answer feedback: (\d+) 👍, (\d+) 👎 \((\d+)% positive\)/.exec(shown.text);
    expect(m).not.toBeNull();
    const tally = await feedback.tally(0, Date.now());
    expect(Number(m![1])).toBe(tally.positive);
    expect(Number(m![2])).toBe(tally.negative);
    expect(Number(m![3])).toBe(Math.round((tally.positive / (tally.positive + tally.negative)) * 100));
    expect(tally.positive).toBeGreaterThanOrEqual(1);
    expect(tally.negative).toBeGreaterThanOrEqual(1);
  });
});

describe('Slack e2e: a workspace without the assistant methods', () => {
  const e = useStarted(() => startSlackE2E({ fake: { assistant: 'missing_scope' } }));

  test('greets and answers without them, and stops calling a method it refused', async () => {
    const thread = `${Math.floor(Date.now() / 1000)}.000321`;
    await e.driver.event({
      type: 'assistant_thread_started',
      assistant_thread: { user_id: 'U0USER1', channel_id: 'D0NOPANE', thread_ts: thread },
      event_ts: thread,
    });
    const greeting = await waitFor(
      () => e.fake.replies('D0NOPANE', thread).find((m) => m.user === e.fake.botUserId),
      'the greeting',
    );
    expect(greeting.text).toMatch(/real-estate assistant/i);
    for (const [question, expected] of [
      ['Homes for sale in Austin?', /^I found \d+ homes for sale in Austin:$/],
      ['Homes for rent in Denver?', /^I found \d+ homes for rent in Denver:$/],
    ] as const) {
      await e.driver.event({
        type: 'message',
        channel: 'D0NOPANE',
        channel_type: 'im',
        user: 'U0USER1',
        text: question,
        ts: `${Math.floor(Date.now() / 1000)}.${String(Math.random()).slice(2, 8)}`,
        thread_ts: thread,
      });
      const { messages } = await waitForAnswer(e, 'D0NOPANE', thread, question);
      expect(firstLineOf(messages)).toMatch(expected);
    }
    // Each refused method was tried once, then left alone.
    expect(e.fake.callsOf('assistant.threads.setStatus')).toHaveLength(1);
    expect(e.fake.callsOf('assistant.threads.setTitle')).toHaveLength(1);
    expect(e.fake.callsOf('assistant.threads.setSuggestedPrompts')).toHaveLength(1);
  });
});
