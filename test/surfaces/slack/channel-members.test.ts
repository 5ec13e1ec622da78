/**
 * Who is a member of a Slack channel (the handoff channel's members are its agents): from
 * `conversations.members`, kept a minute and then asked again, so a member added (or removed) in
 * Slack counts within a minute without one call per click. The cache's clock is the test's.
 */
import type { Place } from '../../../src/core/surface';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { SlackGateway } from '../../../src/surfaces/slack/gateway';
import { SlackDirectory } from '../../../src/surfaces/slack/home';
import { createWebClient } from '../../../src/surfaces/slack/web';
import { FakeSlack } from '../../../fakes/fake-slack';
import { silentLog } from '../../support/silent-log';

const log = silentLog;

describe('Slack channel members', () => {
  let fake: FakeSlack;
  let store: SqliteStore;
  let gateway: SlackGateway;
  let now = Date.parse('2026-03-02T10:00:00.000Z');
  let directory: SlackDirectory;
  const handoff: Place = { surface: 'slack', workspace: 'T0MEMBERS', channel: 'C0HANDOFF' };

  beforeAll(async () => {
    fake = await new FakeSlack({ team: 'T0MEMBERS' }).start();
    store = new SqliteStore(':memory:');
    const client = createWebClient(fake.botToken, fake.apiUrl, log);
    gateway = new SlackGateway({
      client: async () => client,
      store,
      log,
      team: () => fake.team,
    });
    directory = new SlackDirectory(gateway, store, log, () => now);
  });
  afterAll(async () => {
    gateway.close();
    await fake.close();
    await store.close();
  });

  const asked = (): number => fake.calls.filter((c) => c.method === 'conversations.members').length;

  it('answers from the member list, keeps it a minute, then asks again', async () => {
    fake.channelMembers[handoff.channel] = ['U0SMITH'];
    expect(await directory.isMember(handoff, 'U0SMITH')).toBe(true);
    expect(await directory.isMember(handoff, 'U0MALLORY')).toBe(false);
    expect(asked()).toBe(1);

    // Added in Slack: not yet seen within the minute (no call per click)...
    fake.channelMembers[handoff.channel] = ['U0SMITH', 'U0MALLORY'];
    now += 30_000;
    expect(await directory.isMember(handoff, 'U0MALLORY')).toBe(false);
    expect(asked()).toBe(1);
    // ...and seen once it is over.
    now += 31_000;
    expect(await directory.isMember(handoff, 'U0MALLORY')).toBe(true);
    expect(asked()).toBe(2);

    // Removed: no longer a member after the next refresh.
    fake.channelMembers[handoff.channel] = ['U0MALLORY'];
    now += 61_000;
    expect(await directory.isMember(handoff, 'U0SMITH')).toBe(false);
    expect(asked()).toBe(3);
  });

  it('a channel Slack will not list is "cannot tell", not "no", and is asked again next time', async () => {
    const unknown: Place = { ...handoff, channel: 'C0UNLISTED' };
    const before = asked();
    expect(await directory.isMember(unknown, 'U0SMITH')).toBeUndefined();
    expect(await directory.isMember(unknown, 'U0SMITH')).toBeUndefined();
    expect(asked()).toBe(before + 2);
  });
});
