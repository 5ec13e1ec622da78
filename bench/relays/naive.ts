/**
 * The naive relay: post a placeholder, then one chat.update per streamed fragment with all the text
 * so far, then a final edit. On a 429 it waits the Retry-After and tries again (bounded), like a bot
 * built on an SDK's default retry.
 */
import type { OutMessage } from '../../src/core/surface';
import type { PeerPort } from './raw-slack';
import { withRetryAfter, type BenchAnswer, type BenchRelay } from './common';

export const NAIVE_TRIES = { post: 5, interim: 3, final: 5 } as const;

export class NaiveRelay implements BenchRelay {
  readonly name = 'naive (edit per fragment)';

  constructor(private readonly port: PeerPort) {}

  async relay(a: BenchAnswer): Promise<void> {
    const typing = (text: string): OutMessage => ({ text, markdown: true, typing: true });
    const ref = await withRetryAfter(() => this.port.post(a.place, typing('')), NAIVE_TRIES.post, a.signal);
    let text = '';
    for await (const ev of a.events) {
      if (ev.type === 'delta') {
        text += ev.text;
        const now = text;
        // A refused interim edit is given up after its retries; the next fragment carries the text anyway.
        await withRetryAfter(() => this.port.edit(ref, typing(now)), NAIVE_TRIES.interim, a.signal).catch(
          (err: unknown) => {
            if (a.signal.aborted) throw err;
          },
        );
      } else {
        await withRetryAfter(
          () => this.port.edit(ref, { text: ev.answer, markdown: true }),
          NAIVE_TRIES.final,
          a.signal,
        );
        return;
      }
    }
  }

  async close(): Promise<void> {}
}
