/**
 * One natively streamed Slack message (chat.appendStream / chat.stopStream), through the surface's
 * gateway: appends are interims on the workspace's append budget (planned like every interim), the
 * stop is a final on its own Tier 2 budget.
 */
import type { MessageRef, NativeStream, OutMessage, Priority } from '../../core/surface';
import { PlatformRateLimitError } from '../../core/surface';
import { markdownText, type RenderedMessage, renderMessage } from './blocks';
import type { SlackGateway } from './gateway';
import { slackMarkdownText } from './safe-text';

export interface SlackNativeStreamDeps {
  gateway: SlackGateway;
  /** chat.update of the message (through the gateway). */
  update: (ref: MessageRef, msg: OutMessage) => Promise<void>;
  /** Sends `msg` rendered for the workspace's card layout (sections where it refuses cards). */
  cards: (msg: OutMessage, send: (render: () => RenderedMessage) => Promise<void>) => Promise<void>;
  /** The stream is over for this process: stopped, or failed other than by rate. */
  settled: () => void;
  /** chat.stopStream went through: the stop reserved when the stream started is spent. */
  stopped: () => void;
  /** The stopped message shows this whole payload (recorded where it carries buttons). */
  shows: (payload: RenderedMessage) => Promise<void>;
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

  async append(
    text: string,
    opts: { priority?: Priority; coalesceKey?: string; latest?: () => string } = {},
  ): Promise<string> {
    const latest = opts.latest;
    // Slack gets the text escaped (safe-text.ts); `appended` holds what Slack was sent, like
    // markdownText() of the final message; the caller gets back the raw text it handed in.
    let raw = '';
    let sent = '';
    try {
      sent = await this.deps.gateway.appendStream(
        this.ref,
        () => {
          raw = latest ? latest() : text;
          return slackMarkdownText(raw);
        },
        opts,
      );
    } catch (err) {
      this.failed(err);
    }
    this.appended += sent;
    return sent === '' ? '' : raw;
  }

  async stop(finalMessage?: OutMessage): Promise<void> {
    const args: Record<string, unknown> = {};
    const finalText = finalMessage ? markdownText(finalMessage) : this.appended;
    const continues = finalText.startsWith(this.appended);
    if (continues && finalText.length > this.appended.length)
      args.markdown_text = finalText.slice(this.appended.length);
    try {
      if (!finalMessage) await this.deps.gateway.stopStream(this.ref, args);
      // Only what follows the text (notice, cards, buttons): stopStream appends blocks after the stream.
      else
        await this.deps.cards({ ...finalMessage, text: '', typing: false }, async (render) => {
          const tail = render().blocks;
          await this.deps.gateway.stopStream(this.ref, tail.length > 0 ? { ...args, blocks: tail } : args);
          // What the message shows now as one payload (the streamed text as sections, then the tail),
          // so its buttons can later be taken off by an edit, without reading it back.
          const text = renderMessage({ text: finalMessage.text, ...(finalMessage.markdown ? { markdown: true } : {}) });
          if (continues)
            await this.deps.shows({ text: renderMessage(finalMessage).text, blocks: [...text.blocks, ...tail] });
        });
    } catch (err) {
      this.failed(err);
    }
    this.deps.stopped();
    this.settle();
    this.appended = continues ? finalText : this.appended;
    if (!continues && finalMessage) {
      // The stream showed text the final answer does not start with: replace it outright.
      await this.deps.update(this.ref, finalMessage);
      this.appended = renderMessage(finalMessage).text;
    }
  }
}
