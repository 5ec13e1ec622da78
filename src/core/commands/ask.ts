/** `/ask <question>`: starts a conversation in a new thread; Retry buttons come back here. */
import { ANSWER_RETRY_ACTION } from '../conversations/answer-turn';
import type { Conversations } from '../conversations/engine';
import type { CommandHandler } from '../context';
import { FEEDBACK_ACTION, onFeedbackPressed } from '../feedback/feedback';

export const ASK_USAGE = [
  'Usage: /ask <question>',
  'Starts a conversation in a new thread; reply in the thread to continue it (no mention needed).',
  'Attach images, a WAV recording or a video to a thread message to ask about them.',
  'Example: /ask Which 3-bedroom homes are for sale in Austin?',
].join('\n');

export function askCommand(conversations: Conversations): CommandHandler {
  return {
    name: 'ask',
    summary: 'Ask the chatbot a question in a new thread',
    usage: ASK_USAGE,
    adminOnly: false,
    async run(_ctx, inv, args) {
      const question = args.trim();
      if (question === '') {
        await inv.reply({ text: `Please write a question after /ask.\n${ASK_USAGE}` }, { ephemeral: true });
        return;
      }
      await conversations.startFromCommand(inv, question);
    },
    actions: {
      [ANSWER_RETRY_ACTION]: async (_ctx, inv, value) => conversations.retry(inv, value),
      // Rating an answer belongs with asking: anyone who may ask may rate.
      [FEEDBACK_ACTION]: async (ctx, inv, value) => onFeedbackPressed(ctx, inv, value),
    },
  };
}
