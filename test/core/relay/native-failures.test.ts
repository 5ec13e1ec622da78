/**
 * Native streams that go wrong: a rate-limited start is retried (not given up for post and edit), and
 * a stream whose append or stop failed is still finished, showing exactly its final text.
 */
import { Relay, type RelayResult } from '../../../src/core/relay/relay';
import { eachTestbed, startRun } from './testbed';
import {
  PlatformRateLimitError,
  type MessageRef,
  type NativeStream,
  type OutMessage,
  type Place,
} from '../../../src/core/surface';
import { TestSurface, type TestNativeStream, type TestSurfaceOptions } from '../../support/test-surface';
import { fragments, longAnswer, silentLog } from './fake-stream';

interface Faults {
  /** startNativeStream calls that answer 429 first. */
  startRefusals?: number;
  /** 1-based number of the append (over all streams) that fails, once. */
  failAppend?: number;
  /** The first stop fails, once. */
  failStop?: boolean;
  /** Offer stopNativeStream (as the Slack surface does). */
  withStopMethod?: boolean;
}

/** TestSurface with faults injected into its native streams. */
class FaultySurface extends TestSurface {
  readonly starts: OutMessage[] = [];
  readonly stopCalls: Array<{ ref: MessageRef; final: OutMessage }> = [];
  stopNativeStream?: (ref: MessageRef, final: OutMessage) => Promise<void>;
  private appends = 0;
  private stopFailed = false;

  constructor(faults: Faults, opts: TestSurfaceOptions = {}) {
    super({ native: { ttlMs: 300_000 }, ...opts });
    const start = this.startNativeStream?.bind(this);
    let refusals = faults.startRefusals ?? 0;
    this.startNativeStream = async (place: Place, first: OutMessage): Promise<NativeStream | undefined> => {
      // Refused inside the surface's outbound path, which retries like the platforms' gateways.
      await this.outbound('post', place, {}, async () => {
        this.starts.push(first);
        if (refusals > 0) {
          refusals--;
          throw new PlatformRateLimitError(15);
        }
      });
      const stream = await start?.(place, first);
      if (!stream) return stream;
      const append = stream.append.bind(stream);
      const stop = stream.stop.bind(stream);
      stream.append = async (text, o) => {
        if (++this.appends === faults.failAppend) throw new Error('invalid_state');
        return append(text, o);
      };
      stream.stop = async (final?: OutMessage): Promise<void> => {
        if (faults.failStop && !this.stopFailed) {
          this.stopFailed = true;
          throw new Error('message_not_in_streaming_state');
        }
        await stop(final);
      };
      return stream;
    };
    if (faults.withStopMethod) {
      this.stopNativeStream = async (ref: MessageRef, final: OutMessage): Promise<void> => {
        this.stopCalls.push({ ref, final });
        const s = this.nativeStreams.find((x) => x.ref.id === ref.id) as TestNativeStream | undefined;
        if (s && s.stoppedAt === undefined) {
          s.stoppedAt = Date.now();
          s.finalMessage = final;
        }
        // Like Slack's: the message then shows exactly `final` (an edit on the message's budget).
        await this.edit(ref, final);
      };
    }
  }
}

const bed = eachTestbed();
let relay: Relay;
let n = 0;

beforeEach(() => {
  relay = new Relay({
    store: bed.store,
    log: silentLog,
    now: Date.now,
    instanceId: 'nf',
    options: { minInterimIntervalMs: 10 },
  });
});

async function relayAnswer(surface: TestSurface, answer: string, every = 2): Promise<RelayResult> {
  const { stream, running } = startRun(relay, surface, { retry: { action: 'r', value: 'v' }, answerKey: `nf-${++n}` });
  for (const f of fragments(answer, n, 40)) {
    stream.push(f);
    await new Promise((r) => setTimeout(r, every));
  }
  stream.final();
  return running;
}

function expectFinished(surface: TestSurface, result: RelayResult, answer: string): void {
  expect(result.status).toBe('complete');
  expect(surface.joinedText(result.messages)).toBe(answer);
  for (const ref of result.messages) expect(surface.messages.get(ref.id)?.current.typing ?? false).toBe(false);
  // No native stream is left streaming: each was stopped.
  for (const s of surface.nativeStreams) expect(s.stoppedAt).toBeDefined();
}

describe('native stream faults', () => {
  it('retries a rate-limited native start instead of giving native streaming up', async () => {
    const surface = new FaultySurface({ startRefusals: 1 });
    const answer = longAnswer(21, 600);
    const result = await relayAnswer(surface, answer);
    expectFinished(surface, result, answer);
    expect(surface.starts).toHaveLength(2);
    expect(surface.nativeStreams).toHaveLength(1);
    // One message, no post: nothing was lost or posted twice.
    expect(surface.count('post')).toBe(0);
    expect(result.messages).toHaveLength(1);
  });

  it('posts and edits when native starts stay rate limited past the retries', async () => {
    const surface = new FaultySurface({ startRefusals: 100 });
    const answer = longAnswer(22, 300);
    const result = await relayAnswer(surface, answer);
    expectFinished(surface, result, answer);
    expect(surface.nativeStreams).toHaveLength(0);
    expect(surface.count('post')).toBe(1);
    expect(result.messages).toHaveLength(1);
  });

  it('finishes a stream whose append failed with stopNativeStream, showing exactly its text', async () => {
    const surface = new FaultySurface({ failAppend: 3, withStopMethod: true });
    const answer = longAnswer(23, 1500);
    const result = await relayAnswer(surface, answer);
    expectFinished(surface, result, answer);
    const broken = surface.nativeStreams[0];
    expect(broken).toBeDefined();
    const stopped = surface.stopCalls.find((c) => c.ref.id === broken?.ref.id);
    expect(stopped).toBeDefined();
    // It ends showing what it had streamed, finished, and the answer went on in a new message.
    const first = surface.messages.get(broken?.ref.id ?? '');
    expect(stopped?.final).toEqual(first?.current);
    expect(first?.current.typing).toBe(false);
    expect(answer.startsWith(first?.current.text ?? '-')).toBe(true);
    expect(result.messages.length).toBeGreaterThan(1);
  });

  it('finishes a stream whose stop failed with stopNativeStream', async () => {
    const surface = new FaultySurface({ failStop: true, withStopMethod: true });
    const answer = longAnswer(24, 500);
    const result = await relayAnswer(surface, answer);
    expectFinished(surface, result, answer);
    expect(surface.stopCalls).toHaveLength(1);
    expect(surface.stopCalls[0]?.final).toMatchObject({ text: answer, typing: false });
    expect(surface.count('edit')).toBe(1);
  });

  it('edits a stream whose stop failed when the surface cannot stop streams by reference', async () => {
    const surface = new FaultySurface({ failStop: true });
    const answer = longAnswer(25, 500);
    const result = await relayAnswer(surface, answer);
    expect(result.status).toBe('complete');
    expect(surface.joinedText(result.messages)).toBe(answer);
    const m = surface.messages.get(result.messages[0]?.id ?? '');
    expect(m?.current).toMatchObject({ text: answer, typing: false });
  });
});
