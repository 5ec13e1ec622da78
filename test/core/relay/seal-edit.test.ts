/**
 * Splitting costs no call that shows nothing new: when the live message's cut is about to be decided,
 * its interim edit waits for the seal, so the sealing edit carries its final text, without the typing
 * mark, in one call.
 */
import { Relay, type RelayRequest } from '../../../src/core/relay/relay';
import { eachTestbed } from './testbed';
import type { Place } from '../../../src/core/surface';
import { TEST_SURFACE, type TestSurface } from '../../support/test-surface';
import { FakeAnswerStream, silentLog } from './fake-stream';
import { waitFor } from '../../../fakes/wait-for';

const bed = eachTestbed();
let n = 0;

function relayWith(maxHoldMs: number): Relay {
  return new Relay({
    store: bed.store,
    log: silentLog,
    now: Date.now,
    instanceId: 's',
    options: { minInterimIntervalMs: 20, maxHoldMs },
  });
}

function request(surface: TestSurface, events: FakeAnswerStream): RelayRequest & { place: Place } {
  const place: Place = { surface: TEST_SURFACE, workspace: 'W', channel: 'C', thread: `T${++n}` };
  return {
    surface,
    place,
    events,
    finalButtons: [],
    retry: { action: 'r', value: 'v' },
    native: surface.streaming !== undefined,
    answerKey: `seal-${n}`,
  };
}

// 95 of the 100 characters a message may hold: the cut is about to be decided.
const NEAR_FULL = 'word '.repeat(19);

describe('sealing edits', () => {
  it('seals a message with one edit instead of an interim showing its whole text and another dropping the typing mark', async () => {
    const relay = relayWith(10_000);
    const surface = bed.surface({ maxMessageLength: 100 });
    const a = new FakeAnswerStream();
    const b = new FakeAnswerStream();
    const reqA = request(surface, a);
    const reqB = request(surface, b);
    const runA = relay.run(reqA);
    const runB = relay.run(reqB);
    await waitFor(() => surface.count('post') === 2, 'both placeholders posted', 5000, surface.changes);
    const [msgA] = surface.messagesIn(reqA.place);
    const [msgB] = surface.messagesIn(reqB.place);

    a.push(NEAR_FULL);
    // Answer B's interims (each at least minInterimIntervalMs after the last) are the clock: by its
    // third, answer A would long have shown NEAR_FULL had it not waited for the seal.
    for (const word of ['one ', 'two ', 'three ']) {
      const shownBefore = msgB?.current.text ?? '';
      b.push(word);
      await waitFor(
        () => (msgB?.current.text ?? '') !== shownBefore,
        'the next word shown in B',
        5000,
        surface.changes,
      );
    }
    expect(msgA?.current).toMatchObject({ text: '', typing: true });

    // A long word that cannot join the first message: its cut is decided, after NEAR_FULL.
    a.push(`${'x'.repeat(20)} end.`);
    a.final();
    b.final();
    const [resultA] = await Promise.all([runA, runB]);
    expect(resultA.status).toBe('complete');
    expect(surface.joinedText(resultA.messages)).toBe(a.text);
    const first = surface.messages.get(resultA.messages[0]?.id ?? '');
    // The placeholder, then its final text: no version with text and the typing mark.
    expect(first?.versions).toEqual([
      { text: '', markdown: true, typing: true },
      { text: NEAR_FULL, markdown: true, typing: false },
    ]);
  });

  it('shows the text after maxHoldMs when no seal comes', async () => {
    const relay = relayWith(50);
    const surface = bed.surface({ maxMessageLength: 100 });
    const a = new FakeAnswerStream();
    const req = request(surface, a);
    const run = relay.run(req);
    a.push(NEAR_FULL);
    const shown = (): string => surface.messagesIn(req.place)[0]?.current.text ?? '';
    await waitFor(
      () => shown().length >= 'word '.repeat(18).length,
      'the near-full message shown',
      5000,
      surface.changes,
    );
    expect(NEAR_FULL.startsWith(shown())).toBe(true);
    expect(surface.messagesIn(req.place)[0]?.current.typing).toBe(true);
    a.final();
    const result = await run;
    expect(surface.joinedText(result.messages)).toBe(NEAR_FULL);
  });
});
