/**
 * The fixed-interval relay, the approach common in peers: post a placeholder, edit it with the latest
 * text once a second while the answer streams, then edit in the final text. On a 429 it waits the
 * Retry-After and tries again (bounded).
 */
import type { OutMessage } from '../../src/core/surface';
import type { PeerPort } from './raw-slack';
import { AbortedError, sleep, withRetryAfter, type BenchAnswer, type BenchRelay } from './common';

export const FIXED_TRIES = { post: 5, interim: 3, final: 5 } as const;

export class FixedIntervalRelay implements BenchRelay {
  readonly name: string;

  constructor(
    private readonly port: PeerPort,
    private readonly intervalMs = 1_000,
  ) {
    this.name = `fixed interval (${intervalMs / 1000} s)`;
  }

  async relay(a: BenchAnswer): Promise<void> {
    const typing = (text: string): OutMessage => ({ text, markdown: true, typing: true });
    const ref = await withRetryAfter(() => this.port.post(a.place, typing('')), FIXED_TRIES.post, a.signal);
    let text = '';
    let shown = '';
    const streamDone = new AbortController();
    const stopTicks = AbortSignal.any([streamDone.signal, a.signal]);
    const ticking = (async () => {
      let next = Date.now() + this.intervalMs;
      for (;;) {
        try {
          await sleep(next - Date.now(), stopTicks);
        } catch {
          return;
        }
        next += this.intervalMs;
        if (text === shown) continue;
        const now = text;
        try {
          await withRetryAfter(() => this.port.edit(ref, typing(now)), FIXED_TRIES.interim, stopTicks);
          shown = now;
        } catch (err) {
          if (err instanceof AbortedError) return;
        }
        // A tick missed while an edit was retrying is skipped, not made up.
        if (next < Date.now()) next = Date.now() + this.intervalMs;
      }
    })();
    try {
      for await (const ev of a.events) {
        if (ev.type === 'delta') {
          text += ev.text;
          continue;
        }
        streamDone.abort();
        // The interim in flight (if any) lands first: the final must not be overwritten by it.
        await ticking;
        await withRetryAfter(
          () => this.port.edit(ref, { text: ev.answer, markdown: true }),
          FIXED_TRIES.final,
          a.signal,
        );
        return;
      }
    } finally {
      streamDone.abort();
      await ticking;
    }
  }

  async close(): Promise<void> {}
}
