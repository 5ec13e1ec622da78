/**
 * The Discord surface's one outbound path. Every REST call that shows something (messages created
 * and edited in a channel or thread, threads, interaction replies and button updates, ephemeral
 * edits) runs through `DiscordGateway`, which owns the budgets and spends them (GatewayBudgets):
 * finals and replies first, interims in their turn. discord.js's own bucket tracking (X-RateLimit
 * headers) stays as the second line should arrival jitter bunch calls up.
 *
 * Budgets (in the state store: one channel has one budget whoever calls, on whichever instance):
 * - per channel, one call a second (creates and edits): Discord enforces 5 per 5 s; one a second
 *   stays within it and lets a streaming answer grow every second;
 * - per channel, Discord's bucket itself with a margin (5 per 5.4 s): at a steady one a second the
 *   6th call would meet a bucket discord.js still counts as spent;
 * - the bot's global limit (50 requests a second), kept clear of at 10 per quarter second (40 a
 *   second at most, in no burst above 10): Discord counts a call when it arrives, and a burst of 40
 *   taken at once arrives spread over the time it takes to send, so it bunched up with the next
 *   second's calls (49 arrivals within one second, measured on a loaded machine).
 */
import type { Logger } from 'pino';
import type { RateBudget } from '../../core/surface';
import type { StateStore } from '../../state/store';
import { type GatewayCall, GatewayBudgets } from '../budgets/gateway-budgets';

export const CHANNEL_BUDGET = { limit: 1, windowMs: 1000 };
export const GLOBAL_BUDGET = { limit: 10, windowMs: 250 };
/** Not planned: a final finds it within 5.4 s at worst, and the 1-a-second budget paces it already. */
export const CHANNEL_BUCKET = { limit: 5, windowMs: 5400, plan: false };

export class DiscordGateway {
  private readonly budgets: GatewayBudgets;

  constructor(store: StateStore, log: Logger) {
    this.budgets = new GatewayBudgets({ store, log: log.child({ part: 'discord-gateway' }) });
  }

  close(): void {
    this.budgets.close();
  }

  private run<T>(budgets: RateBudget[], c: GatewayCall, fn: () => Promise<T>): Promise<T> {
    return this.budgets.call(budgets, c, fn);
  }

  /** An answer in flight in `channelId` will need one final edit (see SurfacePort.reserveFinal). */
  reserveFinal(channelId: string, holder: string): () => void {
    return this.budgets.reserveFinal(this.channelBudgets(channelId), holder);
  }

  /** The waiting call with this coalesceKey becomes a final (its answer just finished). */
  promote(coalesceKey: string): void {
    this.budgets.promote(coalesceKey);
  }

  globalBudget(): RateBudget {
    return { key: 'discord:global', ...GLOBAL_BUDGET };
  }

  /** The budgets of a message create or edit in a channel (a thread is a channel). */
  channelBudgets(channelId: string): RateBudget[] {
    return [
      { key: `discord:${channelId}:msg`, ...CHANNEL_BUDGET },
      { key: `discord:${channelId}:bucket`, ...CHANNEL_BUCKET },
      this.globalBudget(),
    ];
  }

  /** A REST call that creates or edits a message in `channelId`. */
  inChannel<T>(channelId: string, c: GatewayCall, fn: () => Promise<T>): Promise<T> {
    return this.run(this.channelBudgets(channelId), c, fn);
  }

  /**
   * A message shown in `channelId` through an interaction's callback (a button's update): Discord
   * counts those on the interaction, not on the channel's bucket, but they still take the channel's
   * one-a-second turn so a reader sees one change at a time there.
   */
  viaInteraction<T>(channelId: string, c: GatewayCall, fn: () => Promise<T>): Promise<T> {
    return this.run([{ key: `discord:${channelId}:msg`, ...CHANNEL_BUDGET }, this.globalBudget()], c, fn);
  }

  /** A call on no channel's message bucket (threads, interaction replies, ephemeral edits). */
  global<T>(c: GatewayCall, fn: () => Promise<T>): Promise<T> {
    return this.run([this.globalBudget()], c, fn);
  }
}
