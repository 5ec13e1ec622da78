/**
 * An answer's first message goes up with the answer's first words when they come within the
 * surface's `firstWordsWaitMs` (a partial text that costs no interim call), goes up as the answer
 * ended when it ends first, and goes up empty when no words come in time.
 */
import type { RelayRequest } from '../../../src/core/relay/relay';
import type { Place } from '../../../src/core/surface';
import { TEST_SURFACE } from '../../support/test-surface';
import { waitFor } from '../../../fakes/wait-for';
import { FakeAnswerStream } from './fake-stream';
import { RelayTestbed } from './testbed';

describe("Relay: an answer's first message carries its first words", () => {
  let bed: RelayTestbed;
  let n = 0;
  const place = (): Place => ({ surface: TEST_SURFACE, workspace: 'W1', channel: 'C1', thread: `W${++n}` });
  const request = (surface: RelayRequest['surface'], events: FakeAnswerStream, at: Place): RelayRequest => ({
    surface,
    place: at,
    events,
    finalButtons: [],
    retry: { action: 'answer.retry', value: `q${n}` },
    native: surface.streaming !== undefined,
    answerKey: `first-words-${n}`,
  });

  beforeEach(() => {
    bed = new RelayTestbed();
  });
  afterEach(() => bed.close());

  test('words that arrive while the first message waits are in it when it goes up', async () => {
    // A wait far longer than the test: the post can only go up once the words are there.
    const surface = bed.surface({ firstWordsWaitMs: 60_000 });
    const events = new FakeAnswerStream();
    const at = place();
    const running = bed.relay('a').run(request(surface, events, at));
    events.push('The listing at ');
    await waitFor(() => surface.count('post') === 1, 'the first message', 5000, surface.changes);
    expect(surface.messagesIn(at)[0]!.versions[0]!.text).toContain('The listing at');
    events.push(' 3096 Larimer St.');
    events.final();
    expect((await running).status).toBe('complete');
  });

  test('an answer that ends before its first words show is posted as it ended', async () => {
    const surface = bed.surface({ firstWordsWaitMs: 60_000 });
    const events = new FakeAnswerStream();
    const at = place();
    const running = bed.relay('a').run(request(surface, events, at));
    events.final('All of it.');
    expect((await running).status).toBe('complete');
    const [first] = surface.messagesIn(at);
    expect(first!.versions[0]).toMatchObject({ text: 'All of it.' });
    expect(first!.versions[0]!.typing ?? false).toBe(false);
  });

  test('without words, the first message still goes up (empty), bounded', async () => {
    const surface = bed.surface({ firstWordsWaitMs: 50 });
    const events = new FakeAnswerStream();
    const at = place();
    const running = bed.relay('a').run(request(surface, events, at));
    await waitFor(() => surface.count('post') === 1, 'the empty first message', 5000, surface.changes);
    expect(surface.messagesIn(at)[0]!.versions[0]).toMatchObject({ text: '', typing: true });
    events.push('Late words.');
    events.final();
    expect((await running).status).toBe('complete');
  });
});
