/**
 * The OAuth `state` of "Add to Slack", in the bridge's state store: Bolt's InstallProvider binds it to
 * the browser with a cookie and asks here whether it is genuine. A state is `<id>.<mac>`: the id is
 * random, the mac (HMAC-SHA256 with SLACK_STATE_SECRET) proves this deployment made it, and the id's
 * record (10 minutes) proves it is recent. It is good once: the first callback consumes it
 * atomically, on every instance sharing the store, so a replayed state is refused.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { InstallURLOptions, StateStore as OAuthStateStore } from '@slack/bolt';
import type { Json, StateStore } from '../../../state/store';

const STATE_TTL_MS = 10 * 60 * 1000;

/** The state is unknown, forged, expired or already used: the page says to start again. */
export class InstallStateError extends Error {
  readonly code = 'bridge_oauth_bad_state';
}

export class InstallStates implements OAuthStateStore {
  constructor(
    private readonly store: StateStore,
    private readonly secret: string,
  ) {}

  private mac(id: string): Buffer {
    return createHmac('sha256', this.secret).update(id).digest();
  }

  async generateStateParam(installOptions: InstallURLOptions): Promise<string> {
    const id = randomBytes(18).toString('base64url');
    await this.store.set(`slack:oauth-state:${id}`, JSON.parse(JSON.stringify(installOptions)) as Json, STATE_TTL_MS);
    return `${id}.${this.mac(id).toString('base64url')}`;
  }

  async verifyStateParam(_now: Date, state: string): Promise<InstallURLOptions> {
    const [id, mac] = state.split('.');
    const given = Buffer.from(mac ?? '', 'base64url');
    const expected = id ? this.mac(id) : Buffer.alloc(0);
    if (!id || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new InstallStateError('the state parameter was not made by this app');
    }
    const options = await this.store.get(`slack:oauth-state:${id}`);
    if (options === undefined) throw new InstallStateError('the state parameter has expired or was already used');
    // One callback per state, whichever instance answers it first.
    if (!(await this.store.setIfAbsent(`slack:oauth-state-used:${id}`, true, STATE_TTL_MS))) {
      throw new InstallStateError('the state parameter was already used');
    }
    await this.store.delete(`slack:oauth-state:${id}`);
    return options as unknown as InstallURLOptions;
  }
}
