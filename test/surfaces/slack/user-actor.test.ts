/**
 * Who acts (UserNames.actor): its name and both admin flags come from one read of the workspace's
 * cached users.info (one users.info call for a user not cached yet), not a read per flag.
 */
import { FakeSlack } from '../../../fakes/fake-slack';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { UserNames } from '../../../src/surfaces/slack/users';
import { silentLog } from '../../core/relay/fake-stream';
import { slackPortOn } from '../../support/slack-port';

test('an actor is made from one read of the cached users.info', async () => {
  const fake = await new FakeSlack({ team: 'T0ACTOR' }).start();
  const store = new SqliteStore(':memory:');
  const port = slackPortOn(fake, store);
  const reads: string[] = [];
  const get = store.get.bind(store);
  store.get = (async (key: string) => {
    reads.push(key);
    return get(key);
  }) as SqliteStore['get'];
  try {
    fake.orgAdmins.add('U0ORG');
    fake.workspaceAdmins.add('U0WS');
    const users = new UserNames(port.gateway, store, silentLog);
    const org = await users.actor(fake.team, 'U0ORG', []);
    expect(org).toMatchObject({ id: 'U0ORG', isAdmin: true, orgAdmin: true });
    const ws = await users.actor(fake.team, 'U0WS', []);
    expect(ws).toMatchObject({ id: 'U0WS', isAdmin: true });
    expect(ws.orgAdmin).toBeUndefined();
    const plain = await users.actor(fake.team, 'U0PLAIN', [], 'fallback');
    expect(plain).toEqual({ id: 'U0PLAIN', name: expect.any(String), isAdmin: false });
    expect(fake.callsOf('users.info')).toHaveLength(3);
    // One read each (a miss, then users.info); cached, the next actor is one read and no call.
    expect(reads.filter((k) => k.includes(':cache:user:'))).toHaveLength(3);
    reads.length = 0;
    expect(await users.actor(fake.team, 'U0ORG', [])).toEqual(org);
    expect(reads.filter((k) => k.includes(':cache:user:'))).toHaveLength(1);
    expect(fake.callsOf('users.info')).toHaveLength(3);
    // A name in SLACK_ADMIN_USERS is an org admin whatever users.info says.
    expect(await users.actor(fake.team, 'U0WS', ['U0WS'])).toMatchObject({ isAdmin: true, orgAdmin: true });
  } finally {
    port.close();
    await fake.close();
    await store.close();
  }
});
