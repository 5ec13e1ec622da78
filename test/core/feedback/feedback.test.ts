/** Core's answer feedback, assistant intro and the /analytics feedback figures (local service, SQLite store). */
import { assistantIntro, DEFAULT_GREETING, promptsFromSuggested } from '../../../src/core/assistant/intro';
import { analyticsCommand, feedbackLine, figuresTable } from '../../../src/core/commands/analytics';
import { askCommand } from '../../../src/core/commands/ask';
import {
  FEEDBACK_ACTION,
  beginRatedAnswer,
  feedbackPrompt,
  parseFeedbackValue,
} from '../../../src/core/feedback/feedback';
import { appliedSettingsKey } from '../../../src/core/settings/applied';
import { feedbackButtons } from '../../../src/core/surface';
import { feedbackOf } from '../../../src/core/feedback/feedback';
import { startCommandEnv } from '../commands/support';
import { useStarted } from '../../support/server-setup';

const env = useStarted(() => startCommandEnv());

describe('feedback values', () => {
  test('a prompt round-trips through its values; surfaces without a native control get 👍 and 👎', () => {
    const p = feedbackPrompt('abc123');
    expect(parseFeedbackValue(p.positive)).toEqual({ vote: 'positive', id: 'abc123' });
    expect(parseFeedbackValue(p.negative)).toEqual({ vote: 'negative', id: 'abc123' });
    expect(parseFeedbackValue('sideways:abc')).toBeUndefined();
    expect(feedbackButtons(p).map((b) => [b.label, b.action, b.value])).toEqual([
      ['👍', FEEDBACK_ACTION, 'up:abc123'],
      ['👎', FEEDBACK_ACTION, 'down:abc123'],
    ]);
  });
});

describe('pressing feedback (the ask handler routes it)', () => {
  test('an unknown answer is refused ephemerally; a known one records the vote and a 👎 offers the handoff', async () => {
    const ask = askCommand({} as never);
    const unknown = await env.action(ask, FEEDBACK_ACTION, 'up:doesnotexist', env.alice);
    expect(unknown.replies[0]).toMatchObject({ ephemeral: true });
    expect(unknown.last().text).toMatch(/can no longer be rated/);

    await beginRatedAnswer(await env.scope(), 'core1', 'conv-core', env.channel);
    const up = await env.action(ask, FEEDBACK_ACTION, 'up:core1', env.alice);
    expect(up.last().text).toMatch(/👍 recorded/);
    const down = await env.action(ask, FEEDBACK_ACTION, 'down:core1', env.alice);
    expect(down.replies.at(-1)?.ephemeral).toBe(true);
    expect(down.last().text).toMatch(/now 👎/);
    expect(down.last().buttons?.map((b) => [b.label, b.value])).toEqual([['Talk to a human', 'conv-core']]);
    expect((await feedbackOf(await env.scope()).votesOn('core1')).map((v) => v.vote)).toEqual(['negative']);
  });
});

describe('/analytics feedback', () => {
  test('the line gives the votes and the positive share', () => {
    expect(feedbackLine({ positive: 12, negative: 3 })).toBe('Answer feedback: 12 👍, 3 👎 (80% positive)');
    expect(feedbackLine({ positive: 0, negative: 0 })).toBe('Answer feedback: 0 👍, 0 👎 (no votes yet)');
  });

  test('the table has a row with each kind of vote (the chart draws them per day, not as bars)', () => {
    const table = figuresTable(
      `Analytics for Bot, 2024-05-01 to 2024-05-30\n${feedbackLine({ positive: 7, negative: 2 })}`,
    );
    expect(table.rows).toEqual([['Answer feedback', '7 👍, 2 👎 (78% positive)']]);
  });

  test('/analytics reports the votes cast in the period', async () => {
    const store = feedbackOf(await env.scope());
    const now = env.ctx.now();
    await store.vote('a-an1', 'U1', 'positive', 'slack', now);
    await store.vote('a-an2', 'U1', 'positive', 'discord', now);
    await store.vote('a-an2', 'U2', 'negative', 'discord', now);
    await store.vote('a-old', 'U2', 'negative', 'discord', Date.parse('2001-01-15T12:00:00Z'));
    // /analytics posts a progress note and replaces it with the figures: read what it shows now.
    const resultOf = (inv: Awaited<ReturnType<typeof env.run>>): string =>
      [...env.surface.messages.values()].filter((m) => m.versions[0]?.text === inv.replies[0]?.msg.text).at(-1)?.current
        .text ?? '';
    const inv = await env.run(analyticsCommand, env.admin, '');
    const t = await store.tally(0, Date.now());
    expect(resultOf(inv)).toContain(feedbackLine({ positive: t.positive, negative: t.negative - 1 }));
    const past = await env.run(analyticsCommand, env.admin, '2001-01-01 2001-01-31');
    expect(resultOf(past)).toContain('Answer feedback: 0 👍, 1 👎 (0% positive)');
  });
});

describe('assistant intro', () => {
  test('SuggestedMessage gives one prompt per line (at most four)', () => {
    expect(promptsFromSuggested('a\n\n b \nc\nd\ne').map((p) => p.message)).toEqual(['a', 'b', 'c', 'd']);
  });

  test('without applied settings: prompts from the cities of the listings and the default greeting; with them: theirs', async () => {
    await env.ctx.store.delete(appliedSettingsKey(env.ctx.config.chatbotId));
    const plain = await assistantIntro(await env.scope());
    expect(plain.greeting).toBe(DEFAULT_GREETING);
    expect(plain.prompts.length).toBeGreaterThanOrEqual(1);
    expect(plain.prompts.length).toBeLessThanOrEqual(4);
    expect(plain.prompts.every((p) => /^Which homes are available in .+\?$/.test(p.message))).toBe(true);
    await env.ctx.store.set(appliedSettingsKey(env.ctx.config.chatbotId), {
      WelcomeMessage: 'Hello from Acme',
      SuggestedMessage: 'One?\nTwo?',
    });
    const applied = await assistantIntro(await env.scope());
    expect(applied).toEqual({
      greeting: 'Hello from Acme',
      prompts: [
        { title: 'One?', message: 'One?' },
        { title: 'Two?', message: 'Two?' },
      ],
    });
  });
});
