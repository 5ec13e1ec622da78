/**
 * Memory per 1,000 live conversations: the JavaScript heap a bridge instance holds for conversations
 * whose answers are streaming right now. Each conversation has its stored conversation record and
 * session id (the thread <-> session map), and a live relay state: an answer being relayed, 1,000
 * characters in, with its message posted, its in-flight record and lease. The surface is an in-memory
 * port (no platform), the store SQLite in memory: SQLite's own pages live outside the JS heap, so the
 * process's RSS growth is reported beside the heap growth.
 */
import { NO_BUDGETS, NO_DIRECTORY, NO_STATUS } from '../src/core/capabilities';
import pino from 'pino';
import { convKeys, convRefAt } from '../src/core/conversations/model';
import { convView } from '../src/core/conversations/records';
import { Relay } from '../src/core/relay/relay';
import { streamingCut } from '../src/core/relay/split';
import type { MessageRef, OutMessage, Place, SurfacePort } from '../src/core/surface';
import { SqliteStore } from '../src/state/sqlite-store';
import type { AnswerEvent } from '../src/service/answer-events';
import { AnswerQueue } from './answer-queue';

export interface MemoryFigures {
  conversations: number;
  heapBytesPer1000: number;
  rssBytesPer1000: number;
  /** False when node ran without --expose-gc: the heap figure then includes garbage. */
  gcForced: boolean;
}

/** A platform-less port: messages are kept as plain objects, as small as a surface could be. */
class MemoryPort implements SurfacePort {
  readonly name = 'shell' as const; // any surface name: core never branches on it
  readonly limits = { maxMessageLength: 3_000, maxFormFields: 100 };
  readonly streaming = undefined;
  readonly budgets = NO_BUDGETS;
  readonly directory = NO_DIRECTORY;
  readonly status = NO_STATUS;
  readonly shown = new Map<string, string>();
  private next = 0;

  async post(place: Place, msg: OutMessage): Promise<MessageRef> {
    const id = String(++this.next);
    this.shown.set(id, msg.text);
    return { place, id };
  }

  async edit(ref: MessageRef, msg: OutMessage): Promise<void> {
    this.shown.set(ref.id, msg.text);
  }

  async startThread(place: Place, root: OutMessage): Promise<{ thread: Place; root: MessageRef }> {
    const ref = await this.post(place, root);
    return { thread: { ...place, thread: ref.id }, root: ref };
  }

  async notify(): Promise<void> {}

  mention(user: { id: string }): string {
    return `<@${user.id}>`;
  }

  async fetchAttachment(): Promise<Buffer> {
    return Buffer.alloc(0);
  }
}

function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}

async function settle(pred: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error('memory bench: relays did not settle');
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function runMemoryBench(conversations = 1_000): Promise<MemoryFigures> {
  const log = pino({ level: 'silent' });
  const store = new SqliteStore(':memory:');
  const relay = new Relay({
    store,
    log,
    now: Date.now,
    instanceId: 'memory-bench',
    options: { minInterimIntervalMs: 50 },
  });
  const port = new MemoryPort();
  const chunk = 'Three bedrooms, two baths, a renovated kitchen and a yard close to schools. '
    .repeat(14)
    .slice(0, 1_000);

  // Warm up: code paths compiled and caches filled before the baseline, so they are not counted.
  for (let i = 0; i < 200; i++) {
    const warm = new AnswerQueue();
    const warmRun = relay.run(
      request(port, warm, { surface: 'shell', workspace: 'W', channel: 'CWARM', thread: `W${i}` }, `warm-${i}`),
    );
    warm.push({ type: 'delta', text: chunk });
    warm.push({ type: 'final', questionId: 0, answerId: 0, answer: chunk, totalTokens: 1 });
    await warmRun;
  }
  port.shown.clear();

  collect();
  const heap0 = process.memoryUsage().heapUsed;
  const rss0 = process.memoryUsage().rss;

  const streams: AnswerQueue[] = [];
  const runs: Array<Promise<unknown>> = [];
  const textOf = (i: number): string => chunk.slice(0, 994) + String(i).padStart(6, '0');
  // A streaming message shows only text whose cut is settled (the last word may still grow), so a
  // relay state is fully live once its message shows that much, not the whole 1,000 characters.
  const visible = streamingCut(textOf(0), 0, port.limits.maxMessageLength).safe;
  for (let i = 0; i < conversations; i++) {
    const place: Place = { surface: 'shell', workspace: 'W', channel: `C${i % 10}`, thread: `T${i + 1}` };
    const ref = convRefAt(place);
    const id = ref.id;
    await convView(store, ref).set(convKeys.conversation(id), { id, place: { ...place }, createdAt: Date.now() });
    await convView(store, ref).set(convKeys.session(id), 100_000 + i);
    const s = new AnswerQueue();
    streams.push(s);
    runs.push(relay.run(request(port, s, place, `mem-${i}`)));
    // Each answer its own text, as in life (one shared string would hide the texts' cost).
    s.push({ type: 'delta', text: textOf(i) });
  }
  // Every answer's message shows what it may of its 1,000 characters: the relay states are fully live.
  await settle(() => [...port.shown.values()].filter((t) => t.length === visible).length >= conversations);
  collect();
  const heap1 = process.memoryUsage().heapUsed;
  const rss1 = process.memoryUsage().rss;

  streams.forEach((s, i) => s.push({ type: 'final', questionId: i, answerId: i, answer: textOf(i), totalTokens: 1 }));
  await Promise.all(runs);
  await store.close();

  const per1000 = (d: number): number => Math.round((d / conversations) * 1000);
  return {
    conversations,
    heapBytesPer1000: per1000(heap1 - heap0),
    rssBytesPer1000: per1000(rss1 - rss0),
    gcForced: typeof (globalThis as { gc?: unknown }).gc === 'function',
  };
}

function request(
  port: SurfacePort,
  events: AsyncIterable<AnswerEvent>,
  place: Place,
  answerKey: string,
): Parameters<Relay['run']>[0] {
  return {
    surface: port,
    place,
    events,
    finalButtons: [{ action: 'handoff.request', label: 'Talk to a human', value: answerKey }],
    retry: { action: 'answer.retry', value: answerKey },
    native: port.streaming !== undefined,
    answerKey,
  };
}
