/**
 * A SlackPort wired to a FakeSlack (tests on 127.0.0.1, the real Web API client), as the bridge wires
 * it to Slack: the surface tests differ in what they send, not in how the port is built.
 */
import type { StateStore } from '../../src/state/store';
import { SqliteStore } from '../../src/state/sqlite-store';
import { SlackPort } from '../../src/surfaces/slack/port';
import { createWebClient } from '../../src/surfaces/slack/web';
import { FakeSlack, type FakeSlackOptions } from '../../fakes/fake-slack';
import { silentLog } from './silent-log';

const log = silentLog;

/** A port on `slack` sharing `store` (several calls with one store are several instances of the bridge). */
export function slackPortOn(slack: FakeSlack, store: StateStore, team: () => string = () => slack.team): SlackPort {
  return new SlackPort({
    client: createWebClient(slack.botToken, slack.apiUrl, log),
    store,
    log,
    botToken: slack.botToken,
    team,
  });
}

export interface SlackPortRig {
  fake: FakeSlack;
  port: SlackPort;
  /** Closes the port, the fake and the store, in that order (the port's timers go first). */
  close(): Promise<void>;
}

/** A fake Slack started with `options` and one port on it over an in-memory store of its own. */
export async function startSlackPortRig(options: FakeSlackOptions): Promise<SlackPortRig> {
  const fake = await new FakeSlack(options).start();
  const store = new SqliteStore(':memory:');
  const port = slackPortOn(fake, store);
  return {
    fake,
    port,
    close: async () => {
      port.close();
      await fake.close();
      await store.close();
    },
  };
}
