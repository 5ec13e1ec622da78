/** The fake Slack's assistant.threads.* and context_actions checks, so e2e tests can rely on them. */
import { FakeSlack, STATUS_PER_MINUTE, TIER_BUDGETS } from '../../../fakes/fake-slack';
import { useStarted } from '../../support/server-setup';

describe('fake Slack: the assistant methods and feedback blocks', () => {
  const fake = useStarted(() => new FakeSlack().start());

  const call = async (
    method: string,
    body: Record<string, unknown>,
  ): Promise<{ status: number; json: { ok: boolean; error?: string } }> => {
    const res = await fetch(`${fake.apiUrl}${method}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as { ok: boolean; error?: string } };
  };

  const feedback = (positive: unknown) => [
    { type: 'section', text: { type: 'mrkdwn', text: 'answer' } },
    {
      type: 'context_actions',
      elements: [
        {
          type: 'feedback_buttons',
          action_id: 'fb',
          positive_button: positive,
          negative_button: { text: { type: 'plain_text', text: 'Bad' }, value: 'down' },
        },
      ],
    },
  ];

  test('context_actions with feedback_buttons are accepted when well formed, refused otherwise', async () => {
    const good = await call('chat.postMessage', {
      channel: 'C1',
      text: 'answer',
      blocks: feedback({ text: { type: 'plain_text', text: 'Good' }, value: 'up' }),
    });
    expect(good.json.ok).toBe(true);
    const noValue = await call('chat.postMessage', {
      channel: 'C2',
      text: 'answer',
      blocks: feedback({ text: { type: 'plain_text', text: 'Good' } }),
    });
    expect(noValue.json.error).toBe('invalid_blocks');
    const wrongElement = await call('chat.postMessage', {
      channel: 'C3',
      text: 'a',
      blocks: [{ type: 'context_actions', elements: [{ type: 'button', action_id: 'x' }] }],
    });
    expect(wrongElement.json.error).toBe('invalid_blocks');
  });

  test('prompts, title and status are checked and kept per thread', async () => {
    expect(
      (await call('assistant.threads.setSuggestedPrompts', { channel_id: 'D1', thread_ts: '1.1', prompts: [] })).json
        .error,
    ).toBe('invalid_arguments');
    const five = Array.from({ length: 5 }, (_, i) => ({ title: `t${i}`, message: `m${i}` }));
    expect(
      (await call('assistant.threads.setSuggestedPrompts', { channel_id: 'D1', thread_ts: '1.1', prompts: five })).json
        .error,
    ).toBe('invalid_arguments');
    expect(
      (
        await call('assistant.threads.setSuggestedPrompts', {
          channel_id: 'D1',
          thread_ts: '1.1',
          prompts: five.slice(0, 2),
        })
      ).json.ok,
    ).toBe(true);
    expect(
      (await call('assistant.threads.setTitle', { channel_id: 'D1', thread_ts: '1.1', title: '' })).json.error,
    ).toBe('invalid_arguments');
    expect(
      (await call('assistant.threads.setTitle', { channel_id: 'D1', thread_ts: '1.1', title: 'Homes' })).json.ok,
    ).toBe(true);
    expect(
      (await call('assistant.threads.setStatus', { channel_id: 'D1', thread_ts: '1.1', status: 'is thinking…' })).json
        .ok,
    ).toBe(true);
    expect(
      (await call('assistant.threads.setStatus', { channel_id: 'D1', thread_ts: '1.1', status: '' })).json.ok,
    ).toBe(true);
    const t = fake.assistantThread('D1', '1.1')!;
    expect(t.prompts).toHaveLength(2);
    expect(t.title).toBe('Homes');
    expect(t.statuses.map((s) => s.status)).toEqual(['is thinking…', '']);
  });

  test('rate tiers: setStatus per DM channel, setTitle and setSuggestedPrompts Tier 3', async () => {
    expect(STATUS_PER_MINUTE).toBe(60);
    expect(TIER_BUDGETS['assistant.threads.setTitle']).toBe(50);
    expect(TIER_BUDGETS['assistant.threads.setSuggestedPrompts']).toBe(50);
    // Fired at once, so the bucket cannot refill meaningfully between them.
    const statuses = await Promise.all(
      Array.from({ length: STATUS_PER_MINUTE + 20 }, () =>
        call('assistant.threads.setStatus', { channel_id: 'D9', thread_ts: '9.9', status: 'x' }),
      ),
    );
    expect(statuses.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(1);
    // Another DM has its own budget.
    expect(
      (await call('assistant.threads.setStatus', { channel_id: 'D8', thread_ts: '8.8', status: 'x' })).status,
    ).toBe(200);
  });
});
