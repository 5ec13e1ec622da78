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
import { NO_NATIVE_RETRY_MS, NativeSupport, nativeRefusalKey } from '../../../src/surfaces/slack/native-support';
import { silentLog } from '../../support/silent-log';

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

  test('on the injected clock: waiters take over an inconclusive probe; a refusal lasts NO_NATIVE_RETRY_MS', async () => {
    let now = 5_000_000;
    const support = new NativeSupport({ store, log: silentLog, now: () => now });
    const probe = await support.admit('T0CLOCK');
    expect(probe).toBeDefined();
    let second: Awaited<ReturnType<NativeSupport['admit']>> | 'waiting' = 'waiting';
    const waiting = support.admit('T0CLOCK').then((a) => {
      second = a;
      return a;
    });
    await Promise.resolve();
    expect(second).toBe('waiting');
    // A 429 or a network error says nothing about the workspace: the next start is the probe.
    probe?.settle('unknown');
    const next = await waiting;
    expect(next).toBeDefined();
    next?.settle('refused');
    expect(await support.admit('T0CLOCK')).toBeUndefined();
    // Another instance on the store reads the refusal.
    const other = new NativeSupport({ store, log: silentLog, now: () => now });
    await waitFor(() => store.get(nativeRefusalKey('T0CLOCK')), 'the stored refusal');
    expect(await other.admit('T0CLOCK')).toBeUndefined();
    now += NO_NATIVE_RETRY_MS + 1;
    const again = await support.admit('T0CLOCK');
    expect(again).toBeDefined();
    again?.settle('works');
    // Known to stream: starts no longer wait for a probe.
    const [a, b] = await Promise.all([support.admit('T0CLOCK'), support.admit('T0CLOCK')]);
    expect(a).toBeDefined();
    expect(b).toBeDefined();
  });
});
