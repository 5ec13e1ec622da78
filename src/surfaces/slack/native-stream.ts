/**
 * One natively streamed Slack message (chat.appendStream / chat.stopStream). Each method has its own
 * tier budget per workspace; the relay paces appends through the port's `budgets('edit')` (which
 * names the appendStream budget while a stream is live in the thread), and the stop spends its own
 * Tier 2 budget here, just before the call.
 */
import { spendBudgets } from '../../core/pace';
import type { MessageRef, NativeStream, OutMessage, RateBudget } from '../../core/surface';
import { PlatformRateLimitError } from '../../core/surface';
import type { StateStore } from '../../state/store';
import { plainText, renderMessage } from './blocks';
import { slackText } from './safe-text';
import { call, type WebClient } from './web';

export interface SlackNativeStreamDeps {
  client: WebClient;
  store: StateStore;
  /** chat.stopStream's budget for this workspace. */
  stopBudget: RateBudget;
  /** chat.update outside the relay, on the workspace's chat.update budget. */
  update: (ref: MessageRef, msg: OutMessage) => Promise<void>;
  /** The stream is over for this process: stopped, or failed other than by rate. */
  settled: () => void;
}

export class SlackNativeStream implements NativeStream {
  private done = false;

  constructor(
    private readonly deps: SlackNativeStreamDeps,
    readonly ref: MessageRef,
    private appended: string,
    readonly expiresAt: number,
  ) {}

  private settle(): void {
    if (this.done) return;
    this.done = true;
    this.deps.settled();
  }

  /** A failure other than a 429 ends native streaming of this message (the relay edits it instead). */
  private failed(err: unknown): never {
    if (!(err instanceof PlatformRateLimitError)) this.settle();
    throw err;
  }

  async append(text: string): Promise<void> {
    if (text.length === 0) return;
    // `appended` holds what Slack was sent: escaped, like plainText() of the final message.
    const safe = slackText(text);
    try {
      await call(() =>
        this.deps.client.apiCall('chat.appendStream', { channel: this.ref.place.channel, ts: this.ref.id, markdown_text: safe }),
      );
    } catch (err) {
      this.failed(err);
    }
    this.appended += safe;
  }

  async stop(finalMessage?: OutMessage): Promise<void> {
    const args: Record<string, unknown> = { channel: this.ref.place.channel, ts: this.ref.id };
    const finalText = finalMessage ? plainText(finalMessage) : this.appended;
    const continues = finalText.startsWith(this.appended);
    if (continues && finalText.length > this.appended.length) args.markdown_text = finalText.slice(this.appended.length);
    if (finalMessage) {
      // Only what follows the text (notice, buttons): stopStream appends blocks after the stream.
      const tail = renderMessage({ ...finalMessage, text: '', typing: false }).blocks;
      if (tail.length > 0) args.blocks = tail;
    }
    try {
      await spendBudgets(this.deps.store, [this.deps.stopBudget]);
      await call(() => this.deps.client.apiCall('chat.stopStream', args));
    } catch (err) {
      this.failed(err);
    }
    this.settle();
    this.appended = continues ? finalText : this.appended;
    if (!continues && finalMessage) {
      // The stream showed text the final answer does not start with: replace it outright. The relay
      // spent an appendStream token for this stop, so the chat.update spends its own.
      await this.deps.update(this.ref, finalMessage);
      this.appended = renderMessage(finalMessage).text;
    }
  }
}
