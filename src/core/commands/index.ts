/** The slash commands core answers. The conversation module adds `ask` and `handoff`. */
import type { CommandHandler } from '../context';
import { analyticsCommand } from './analytics';
import { chatbotCommand } from './chatbot';
import { historyCommand } from './history';
import { listingCommand } from './listing';
import { listingsCommand } from './listings';

export function commandHandlers(): CommandHandler[] {
  return [listingsCommand, listingCommand, chatbotCommand, analyticsCommand, historyCommand];
}
