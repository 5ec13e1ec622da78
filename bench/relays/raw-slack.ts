/**
 * The peers' way to Slack: chat.postMessage and chat.update straight through the Web API client,
 * with our payloads (blocks.ts) but none of our gateway's budgets. A peer relay paces itself (or
 * not) and meets Slack's 429s as they come, as the approaches it stands for do.
 */
import type { MessageRef, OutMessage, Place } from '../../src/core/surface';
import { renderMessage } from '../../src/surfaces/slack/blocks';
import { call, type WebClient } from '../../src/surfaces/slack/web';

export interface PeerPort {
  post(place: Place, msg: OutMessage): Promise<MessageRef>;
  edit(ref: MessageRef, msg: OutMessage): Promise<void>;
}

export class RawSlack implements PeerPort {
  constructor(private readonly client: WebClient) {}

  async post(place: Place, msg: OutMessage): Promise<MessageRef> {
    const { text, blocks } = renderMessage(msg);
    const res = await call(() =>
      this.client.chat.postMessage({
        channel: place.channel,
        text,
        blocks: blocks as never,
        ...(place.thread ? { thread_ts: place.thread } : {}),
      }),
    );
    if (typeof res.ts !== 'string') throw new Error('chat.postMessage answered without ts');
    return { place, id: res.ts };
  }

  async edit(ref: MessageRef, msg: OutMessage): Promise<void> {
    const { text, blocks } = renderMessage(msg);
    await call(() =>
      this.client.chat.update({ channel: ref.place.channel, ts: ref.id, text, blocks: blocks as never }),
    );
  }
}
