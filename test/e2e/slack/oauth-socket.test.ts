/** OAuth mode over Socket Mode: the install pages on the app's HTTP server, events over the socket. */
import { waitFor } from '../../../fakes/slack-requests';
import { startSlackSocketE2E } from '../../support/fake-slack-socket';
import { useStarted } from '../../support/server-setup';
import { rootFor, waitForAnswer } from '../../support/slack-e2e';
import { beginInstall } from '../../../fakes/slack-install';
import { install } from '../../support/slack-oauth';
import { oauthEnv } from '../../support/slack-mode';

describe('Slack OAuth e2e: Socket Mode', () => {
  const e = useStarted(() => startSlackSocketE2E({ env: { ...oauthEnv(), SLACK_SIGNING_SECRET: 'socket-signing' } }));

  test('installs through the app’s HTTP server and answers a command from the socket with the workspace’s token', async () => {
    expect(e.socket.connected).toBe(true);
    expect((await beginInstall(e)).res.status).toBe(302);
    e.fake.workspaces.addChannels('T0SOCK', 'C0SOCK');
    await install(e, { team: 'T0SOCK', teamName: 'Socket Office', user: 'U0USER1' });
    const envelope = e.socket.slashCommand('/ask', 'Ranches in Texas?', { team: 'T0SOCK', channel: 'C0SOCK' });
    await e.socket.waitAck(envelope);
    const root = await waitFor(() => rootFor(e.fake, 'C0SOCK', 'Ranches in Texas?'), 'the root');
    await waitForAnswer(e, 'C0SOCK', root.ts, 'Ranches in Texas?');
    const calls = e.fake.calls.filter((c) => c.args.channel === 'C0SOCK');
    expect(calls.length).toBeGreaterThan(1);
    for (const c of calls) expect(c).toMatchObject({ team: 'T0SOCK', response: { ok: true } });
  });
});
