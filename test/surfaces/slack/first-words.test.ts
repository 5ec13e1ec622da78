/**
 * An answer's first message on the chat.update path goes up with the answer's first words when they
 * come within a moment (a partial text that costs no chat.update token), and goes up empty when
 * they do not.
 */
import type { OutMessage, Place } from '../../../src/core/surface';
import type { SlackPort } from '../../../src/surfaces/slack/port';
import type { FakeSlack } from '../../support/fake-slack';
import { type SlackPortRig, startSlackPortRig } from '../../support/slack-port';

describe("SlackPort: an answer's first message carries its first words", () => {
  let rig: SlackPortRig;
  let fake: FakeSlack;
  let port: SlackPort;
  const place = (channel: string): Place => ({ surface: 'slack', workspace: 'T0WORDS', channel, thread: '1.1' });

  beforeAll(async () => {
    rig = await startSlackPortRig({ team: 'T0WORDS' });
    ({ fake, port } = rig);
  });

  afterAll(() => rig.close());

  test('words that arrive while the first message waits are in it when it goes up', async () => {
    let looks = 0;
    // The words arrive on the third look at the answer (no timing: the port looks until they come).
    const latest = (): OutMessage => ({ text: ++looks >= 3 ? 'The listing at' : '', typing: true });
    const ref = await port.post(place('C0WORDS1'), { text: '', typing: true }, { latest });
    expect(fake.message('C0WORDS1', ref.id)!.history).toEqual(['The listing at']);
  });

  test('an answer that ends before its first words show is posted as it ended', async () => {
    const latest = (): OutMessage => ({ text: 'All of it.', typing: false });
    const ref = await port.post(place('C0WORDS2'), { text: '', typing: true }, { latest });
    expect(fake.message('C0WORDS2', ref.id)!.text).toBe('All of it.');
  });

  test('without words, the first message still goes up (empty), bounded', async () => {
    const latest = (): OutMessage => ({ text: '', typing: true });
    const ref = await port.post(place('C0WORDS3'), { text: '', typing: true }, { latest });
    expect(fake.message('C0WORDS3', ref.id)!.history).toEqual(['']);
  });
});
