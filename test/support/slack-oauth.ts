/**
 * "Add to Slack" in end-to-end tests: the app in OAuth mode on the fake Slack (SLACK_BOT_TOKEN unset,
 * the OAuth variables and a fresh STATE_ENCRYPTION_KEY set); the browser's trip through
 * /slack/install and /slack/oauth_redirect is fakes/slack-install.ts.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { FakeGrant } from '../../fakes/fake-slack-oauth';
import { type Installable, install as installWorkspace } from '../../fakes/slack-install';
import type { SlackDriver } from '../../fakes/slack-requests';
import { tempDir } from './app-env';
import { SIGNING_SECRET, startSlackE2E, type SlackE2E } from './slack-e2e';
import { oauthEnv } from './slack-mode';

export interface OAuthE2E extends SlackE2E {
  /** The SQLite file of the state store (read raw by the encryption-at-rest test). */
  dbPath: string;
  key: string;
}

export async function startOAuthE2E(
  opts: { now?: () => number; env?: Record<string, string>; logLines?: string[]; llm?: { baseUrl: string } } = {},
): Promise<OAuthE2E> {
  const dir = tempDir('slack-oauth-');
  const dbPath = join(dir.dir, 'state.db');
  const key = randomBytes(32).toString('base64');
  const e = await startSlackE2E({
    env: {
      ...oauthEnv(key),
      STATE_URL: `sqlite:${dbPath}`,
      ...opts.env,
    },
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.logLines ? { logLines: opts.logLines } : {}),
    ...(opts.llm ? { llm: opts.llm } : {}),
  });
  return {
    ...e,
    dbPath,
    key,
    async close() {
      await e.close();
      dir.remove();
    },
  };
}

/** The whole "Add to Slack" trip for `grant` (fakes/slack-install.ts), signed with the tests' secret. */
export function install(e: Installable, grant: FakeGrant): Promise<{ page: string; driver: SlackDriver }> {
  return installWorkspace(e, grant, SIGNING_SECRET);
}
