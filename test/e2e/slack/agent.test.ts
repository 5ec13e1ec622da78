/**
 * Slack's Agent messaging experience through the whole app (the app declares agent_view): opening
 * the Messages tab greets once per user per day (core's clock moved a day greets again) and sets the
 * suggested prompts without a thread; a DM question is a conversation streamed in a thread on the
 * user's message, with the status before the answer, the thread titled and the rating control;
 * app_context_changed keeps the channel the user is looking at.
 */
import { agentContext } from '../../../src/surfaces/slack/agent';
import type { FakeMessage } from '../../../fakes/fake-slack';
import { startSlackE2E, waitForAnswer } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';

const DAY_MS = 24 * 60 * 60 * 1000;
let seq = 0;
const tsNow = (): string => `${Math.floor(Date.now() / 1000)}.${String(200000 + ++seq)}`;

describe('Slack e2e: the agent experience (Messages tab)', () => {
  let shift = 0;
  const e = useStarted(() =>
    startSlackE2E({ fragmentDelayMs: 10, fake: { agentView: true }, now: () => Date.now() + shift }),
  );

  const open = (channel: string, user: string) =>
    e.driver.event({ type: 'app_home_opened', user, channel, tab: 'messages', event_ts: tsNow() });
  const greetings = (channel: string): FakeMessage[] =>
    e.fake.channelMessages(channel).filter((m) => m.user === e.fake.botUserId && !m.thread_ts);
  /** The greetings in `channel` once there are `count`. */
  const greeted = (channel: string, count = 1): Promise<FakeMessage[]> =>
    waitFor(() => greetings(channel).length >= count && greetings(channel), `greeting ${count} in ${channel}`);
  /** The channel the store keeps for U0USER1's agent context once it is no longer `was`. */
  const contextOnceNot = (was: string | undefined): Promise<string> =>
    waitFor(async () => {
      const kept = (await agentContext(e.app.store, e.fake.team, 'U0USER1'))?.channel;
      return kept !== was && kept;
    }, `the context after ${was}`);

  test('opening the DM greets once a day and sets the suggested prompts on the DM (no thread)', async () => {
    expect((await open('D0AGENT1', 'U0USER1')).status).toBe(200);
    const greeting = await waitFor(() => greetings('D0AGENT1')[0], 'the greeting');
    expect(greeting.text).toMatch(/real-estate assistant/i);
    const prompts = await waitFor(() => e.fake.dmPrompts.get('D0AGENT1')?.[0], 'the suggested prompts');
    expect(prompts.length).toBeGreaterThanOrEqual(1);
    expect(prompts.length).toBeLessThanOrEqual(4);
    for (const p of prompts) expect(p.message).toMatch(/Austin|Denver|Miami|Seattle/);
    const call = e.fake.callsOf('assistant.threads.setSuggestedPrompts').find((c) => c.args.channel_id === 'D0AGENT1');
    expect(call?.args.thread_ts).toBeUndefined();

    // Opened again the same day: no second greeting. Another user's open, handled after it, shows
    // the second open was handled too.
    await open('D0AGENT1', 'U0USER1');
    await open('D0AGENT1', 'U0USER1');
    await open('D0AGENT2', 'U0USER2');
    expect((await greeted('D0AGENT2'))[0]!.text).toMatch(/real-estate assistant/i);
    expect(await waitFor(() => (e.fake.busy === 0 ? { busy: 0 } : undefined), 'the fake idle')).toEqual({ busy: 0 });
    expect(greetings('D0AGENT1')).toHaveLength(1);
    expect(e.fake.dmPrompts.get('D0AGENT1')).toHaveLength(1);

    // The next day: greeted again.
    shift += DAY_MS;
    await open('D0AGENT1', 'U0USER1');
    const twice = await greeted('D0AGENT1', 2);
    expect(twice.map((m) => m.text)).toEqual([greeting.text, greeting.text]);
    const promptSets = await waitFor(() => {
      const sets = e.fake.dmPrompts.get('D0AGENT1');
      return sets?.length === 2 && sets;
    }, 'the prompts set again');
    expect(promptSets[1]).toEqual(promptSets[0]);
  });

  test('a DM question (no assistant_app_thread root) is streamed in its thread with status, title and rating', async () => {
    const channel = 'D0AGENT3';
    await open(channel, 'U0USER2');
    expect((await greeted(channel))[0]!.text).toMatch(/real-estate assistant/i);
    const question = 'Which homes are available in Austin with a garden?';
    const ts = tsNow();
    await e.driver.event({ type: 'message', channel, channel_type: 'im', user: 'U0USER2', text: question, ts });
    const { messages } = await waitForAnswer(e, channel, ts, question);
    // Streamed natively in the thread on the user's message.
    expect(e.fake.callsOf('chat.startStream').some((c) => c.args.channel === channel && c.args.thread_ts === ts)).toBe(
      true,
    );
    const statuses = await waitFor(() => {
      const s = e.fake.assistantThread(channel, ts)?.statuses;
      return s && s.at(-1)?.status === '' ? s : undefined;
    }, 'the status set and cleared');
    expect(statuses[0]!.status.length).toBeGreaterThan(0);
    const statusCall = e.fake.callIndex(
      (c) => c.method === 'assistant.threads.setStatus' && c.args.channel_id === channel && c.args.status !== '',
    );
    const firstAnswerCall = e.fake.callIndex(
      (c) => (c.method === 'chat.startStream' || c.method === 'chat.postMessage') && c.args.thread_ts === ts,
    );
    expect(statusCall).toBeLessThan(firstAnswerCall);
    const title = await waitFor(() => e.fake.assistantThread(channel, ts)?.title, 'the title');
    expect(question.startsWith(title.replace(/…$/, ''))).toBe(true);
    const blocks = JSON.stringify(messages.at(-1)!.blocks);
    expect(blocks).toContain('feedback_buttons');
  });

  test('app_context_changed keeps the channel the user is looking at', async () => {
    const context = (channel: string) => ({
      entities: [{ type: 'slack#/types/channel_id', value: channel, team_id: e.fake.team }],
    });
    await e.driver.event({
      type: 'app_context_changed',
      user: 'U0USER1',
      channel: 'D0AGENT1',
      context: context('C0A'),
    });
    const first = await contextOnceNot(undefined);
    expect(first).toBe('C0A');
    await e.driver.event({
      type: 'app_context_changed',
      user: 'U0USER1',
      channel: 'D0AGENT1',
      context: context('C0B'),
    });
    expect(await contextOnceNot(first)).toBe('C0B');
  });
});
