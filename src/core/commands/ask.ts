/** `/ask <question>`: starts a conversation in a new thread; Retry buttons come back here. */
import { ANSWER_RETRY_ACTION } from '../conversations/answer-turn';
import type { Conversations } from '../conversations/engine';
import type { CommandHandler } from '../context';
import { usageOf } from './catalogue';
import { FEEDBACK_ACTION, onFeedbackPressed } from '../feedback/feedback';

export function askCommand(conversations: Conversations): CommandHandler {
  return {
    async run(ctx, inv, args) {
      const question = args.trim();
      if (question === '') {
        await inv.reply({ text: `Please write a question after /ask.\n${usageOf('ask')}` }, { ephemeral: true });
        return;
      }
      // The request's scope serves the answer to its question too (conversations/asked-scopes.ts).
      await conversations.startFromCommand(inv, question, inv.attachments ?? [], ctx);
    },
    actions: {
      [ANSWER_RETRY_ACTION]: async (_ctx, inv, value) => conversations.retry(inv, value),
      // Rating an answer belongs with asking: anyone who may ask may rate.
      [FEEDBACK_ACTION]: async (ctx, inv, value) => onFeedbackPressed(ctx, inv, value),
    },
  };
}
