/**
 * Answer feedback, surface-neutral: every complete answer carries a rating control (OutMessage
 * `feedback`); a press comes back as the `feedback.vote` action with `up:<id>` or `down:<id>`. The
 * vote is stored once per person per answer (FeedbackStore), acknowledged only to the voter, and a
 * negative vote offers "Talk to a human" for the answer's conversation.
 */
import { randomBytes } from 'node:crypto';
import { FeedbackStore, type Vote } from '../../state/feedback-store';
import type { UnconnectedScope } from '../context';
import { HANDOFF_ACTIONS } from '../handoff/model';
import type { FeedbackPrompt, Invocation, MessageRef, Place } from '../surface';

export const FEEDBACK_ACTION = 'feedback.vote';

const VALUE = /^(up|down):([A-Za-z0-9_-]{1,64})$/;

export function newFeedbackId(): string {
  return randomBytes(8).toString('hex');
}

/** The rating control of one answer. */
export function feedbackPrompt(id: string): FeedbackPrompt {
  return { action: FEEDBACK_ACTION, positive: `up:${id}`, negative: `down:${id}` };
}

export function parseFeedbackValue(value: string): { vote: Vote; id: string } | undefined {
  const m = VALUE.exec(value);
  return m ? { vote: m[1] === 'up' ? 'positive' : 'negative', id: m[2]! } : undefined;
}

/** The rated answers and votes of the scope's tenant (the raw store only for answers rated before they moved there). */
export function feedbackOf(ctx: Pick<UnconnectedScope, 'view' | 'store'>): FeedbackStore {
  return new FeedbackStore(ctx.view, ctx.store);
}

/**
 * Before the answer streams: the answer is known (so an early press finds it), its ids come later.
 * `id` is new (newFeedbackId: 64 random bits), so there is no record of it to read and merge.
 */
export async function beginRatedAnswer(
  ctx: Pick<UnconnectedScope, 'view' | 'store' | 'now'>,
  id: string,
  conversation: string,
  place: Place,
): Promise<void> {
  const answer = {
    id,
    surface: place.surface,
    conversation,
    workspace: place.workspace,
    channel: place.channel,
    ...(place.thread ? { thread: place.thread } : {}),
    at: ctx.now(),
  };
  await feedbackOf(ctx).saveAnswer(answer, null);
}

/** Once complete: the message that carries the control and the service's AnswerID. */
export async function completeRatedAnswer(
  ctx: Pick<UnconnectedScope, 'view' | 'store'>,
  id: string,
  done: { message?: MessageRef; answerId?: string | number },
): Promise<void> {
  const store = feedbackOf(ctx);
  // Read once: gone (its tenant left meanwhile) it is not written again; there, it is the record to complete.
  const known = await store.answer(id);
  if (!known) return;
  const completed = {
    ...known,
    ...(done.message ? { message: done.message.id } : {}),
    ...(done.answerId !== undefined ? { answerId: done.answerId } : {}),
  };
  await store.saveAnswer(completed, known);
}

/** A press of 👍 / 👎 (or Slack's feedback buttons). */
export async function onFeedbackPressed(ctx: UnconnectedScope, inv: Invocation, value: string): Promise<void> {
  const parsed = parseFeedbackValue(value);
  // The answer is looked up in the presser's tenant: another workspace's answer cannot be rated from here.
  const store = feedbackOf(ctx);
  const answer = parsed ? await store.answer(parsed.id) : undefined;
  if (!parsed || !answer) {
    await inv.reply({ text: 'This answer can no longer be rated.' }, { ephemeral: true });
    return;
  }
  const outcome = await store.vote(answer.id, inv.actor.id, parsed.vote, inv.surface.name, ctx.now());
  ctx.log.info(
    { answer: answer.id, answerId: answer.answerId, vote: parsed.vote, outcome: outcome.kind },
    'answer feedback',
  );
  const mark = parsed.vote === 'positive' ? '👍' : '👎';
  const ack =
    outcome.kind === 'recorded'
      ? `Thanks for your feedback: ${mark} recorded.`
      : outcome.kind === 'changed'
        ? `Your feedback is now ${mark} (it was ${outcome.previous === 'positive' ? '👍' : '👎'}).`
        : `You already rated this answer ${mark}.`;
  if (parsed.vote === 'negative') {
    await inv.reply(
      {
        text: `${ack} Sorry it did not help. Would you like a person to take over?`,
        buttons: [
          { action: HANDOFF_ACTIONS.request, label: 'Talk to a human', value: answer.conversation, style: 'primary' },
        ],
      },
      { ephemeral: true },
    );
    return;
  }
  await inv.reply({ text: ack }, { ephemeral: true });
}

export { FeedbackStore };
