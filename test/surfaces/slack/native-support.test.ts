/**
 * The refusal of native streaming is remembered in the state store: another instance sharing it
 * (another SlackPort on the same store) does not ask Slack again; a workspace that streams still
 * streams, and its later starts do not wait for a probe.
 */
import type { Place } from '../../../src/core/surface';
import { SqliteStore } from '../../../src/state/sqlite-store';
import type { SlackPort } from '../../../src/surfaces/slack/port';
import { FakeSlack } from '../../../fakes/fake-slack';
import { waitFor } from '../../../fakes/slack-requests';
import { slackPortOn } from '../../support/slack-port';

describe('native streaming support, learnt once per workspace', () => {
  const ports: SlackPort[] = [];
  const fakes: FakeSlack[] = [];
  let store: SqliteStore;

  const placeIn = (fake: FakeSlack, channel: string, ts: string): Place => {
    fake.messages.push({ channel, ts, text: 'question', blocks: [], user: 'U0USER1', history: [] });
    return { surface: 'slack', workspace: fake.team, channel, thread: ts };
  };

  const portOn = (fake: FakeSlack): SlackPort => {
    const p = slackPortOn(fake, store);
    ports.push(p);
    return p;
  };

  beforeEach(() => {
    store = new SqliteStore(':memory:');
  });

  afterEach(async () => {
    for (const p of ports.splice(0)) p.close();
    for (const f of fakes.splice(0)) await f.close();
    await store.close();
  });

  test('another instance on the same store learns the refusal without a chat.startStream of its own', async () => {
    const fake = await new FakeSlack({ team: 'T0NONATIVE', streaming: 'unknown_method' }).start();
    fakes.push(fake);
    const first = portOn(fake);
    const second = portOn(fake);
    const a = await first.startNativeStream(placeIn(fake, 'C0A', '1700000000.000001'), { text: 'Hello' });
    expect(a).toBeUndefined();
    expect(fake.callsOf('chat.startStream')).toHaveLength(1);
    const b = await second.startNativeStream(placeIn(fake, 'C0B', '1700000000.000002'), { text: 'Hello' });
    expect(b).toBeUndefined();
    expect(fake.callsOf('chat.startStream')).toHaveLength(1);
  });

  test('concurrent starts in a streaming workspace: one probe, then the others start too', async () => {
    const fake = await new FakeSlack({ team: 'T0NATIVE' }).start();
    fakes.push(fake);
    const port = portOn(fake);
    const gate = fake.hold('chat.startStream');
    const starts = [1, 2, 3].map((i) =>
      port.startNativeStream(placeIn(fake, `C0N${i}`, `1700000000.00000${i}`), { text: `Hello ${i}` }),
    );
    await waitFor(() => gate.arrived() > 0 || undefined, 'the probe at Slack');
    // The other two wait for the probe's outcome rather than asking Slack alongside it.
    expect(gate.arrived()).toBe(1);
    gate.release();
    const streams = await Promise.all(starts);
    expect(streams.every((s) => s !== undefined)).toBe(true);
    expect(fake.callsOf('chat.startStream').filter((c) => c.response.ok === true)).toHaveLength(3);
  });
});
