/**
 * An answer of the chatbot service held mid-way, for tests that act while an answer streams. Scripted
 * on the service proxy (test/e2e/faults/service-proxy.ts) for one ClientAsk, it streams its first part,
 * waits for the test's `release()`, then streams the rest and the final. Whether the bridge closed
 * the stream before the release (it stopped reading the answer) is recorded.
 */
import { type Handler, openStream, sse } from './fake-chatbot-server';
import type { SlackCall } from '../../fakes/fake-slack';

export interface HeldAnswer {
  handler: Handler;
  /** The whole answer: what a complete relay shows. */
  text: string;
  /** The first part went out to the bridge. */
  started(): boolean;
  /** The bridge closed the stream before `release`: it stopped reading the answer. */
  closedEarly(): boolean;
  /** Streams the rest and the final (unless the bridge closed the stream). */
  release(): void;
}

export function heldAnswer(parts: string[], answerId: number): HeldAnswer {
  let started = false;
  let released = false;
  let closedEarly = false;
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const text = parts.join('');
  const handler: Handler = async (_req, res) => {
    res.on('close', () => {
      if (!released) closedEarly = true;
    });
    const stream = openStream(res, 'text/event-stream');
    await stream.write(sse([{ content: parts[0] }]).join(''));
    started = true;
    await gate;
    if (closedEarly || res.destroyed) return;
    for (const part of parts.slice(1)) await stream.write(sse([{ content: part }]).join(''));
    await stream.write(sse([{ answer: text, answerId, questionId: answerId, totalToken: 12 }]).join(''));
    stream.end();
  };
  return {
    handler,
    text,
    started: () => started,
    closedEarly: () => closedEarly,
    release() {
      released = true;
      open();
    },
  };
}

/** A Slack Web API call about `channel` (posts, updates, streams, the status line). */
export const onChannel =
  (channel: string) =>
  (c: SlackCall): boolean =>
    c.args.channel === channel || c.args.channel_id === channel;
