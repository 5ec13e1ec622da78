/** The slash commands core answers besides `ask` and `handoff` (the bridge builds those two). */
import type { CommandHandlers } from '../context';
import { analyticsCommand } from './analytics';
import { chatbotCommand } from './chatbot';
import { historyCommand } from './history';
import { listingCommand } from './listing';
import { listingsCommand } from './listings';

export function commandHandlers(): CommandHandlers {
  return {
    listings: listingsCommand,
    listing: listingCommand,
    chatbot: chatbotCommand,
    analytics: analyticsCommand,
    history: historyCommand,
  };
}
