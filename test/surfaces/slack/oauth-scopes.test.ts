/** "Add to Slack" asks for manifest.yml's bot scopes: one list, checked here. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { BOT_SCOPES, REDIRECT_PATH } from '../../../src/surfaces/slack/oauth/scopes';

const manifest = z
  .object({
    oauth_config: z.object({ redirect_urls: z.array(z.string()), scopes: z.object({ bot: z.array(z.string()) }) }),
    settings: z.object({ event_subscriptions: z.object({ bot_events: z.array(z.string()) }) }),
  })
  .parse(parse(readFileSync(join(__dirname, '..', '..', '..', 'manifest.yml'), 'utf8')));

test('the install link’s scopes are manifest.yml’s bot scopes, in order', () => {
  expect([...BOT_SCOPES]).toEqual(manifest.oauth_config.scopes.bot);
});

test('the manifest names the redirect URL and subscribes to the events that say a workspace left', () => {
  expect(manifest.oauth_config.redirect_urls).toEqual([`https://YOUR-HOST${REDIRECT_PATH}`]);
  expect(manifest.settings.event_subscriptions.bot_events).toEqual(
    expect.arrayContaining(['app_uninstalled', 'tokens_revoked']),
  );
});
