/** manifest.yml installs the app the code implements: same commands, same endpoint, needed scopes. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { SLACK_COMMANDS } from '../src/surfaces/slack';

const manifestSchema = z.object({
  display_information: z.object({ name: z.string().min(1), description: z.string().min(1) }),
  features: z.object({
    bot_user: z.object({ display_name: z.string().min(1) }),
    slash_commands: z.array(
      z.object({ command: z.string(), url: z.string(), description: z.string().min(1), usage_hint: z.string().min(1) }),
    ),
  }),
  oauth_config: z.object({ scopes: z.object({ bot: z.array(z.string()) }) }),
  settings: z.object({
    event_subscriptions: z.object({ request_url: z.string(), bot_events: z.array(z.string()) }),
    interactivity: z.object({ is_enabled: z.literal(true), request_url: z.string() }),
    socket_mode_enabled: z.literal(false),
  }),
});

const root = join(__dirname, '..');
const manifest = manifestSchema.parse(parse(readFileSync(join(root, 'manifest.yml'), 'utf8')));

describe('manifest.yml', () => {
  test('lists exactly the slash commands the Slack surface registers', () => {
    expect(manifest.features.slash_commands.map((c) => c.command).sort()).toEqual([...SLACK_COMMANDS].sort());
  });

  test('sends commands, events and interactivity to /slack/events', () => {
    const urls = [
      ...manifest.features.slash_commands.map((c) => c.url),
      manifest.settings.event_subscriptions.request_url,
      manifest.settings.interactivity.request_url,
    ];
    for (const url of urls) expect(url).toMatch(/^https:\/\/[^/]+\/slack\/events$/);
  });

  test('subscribes to the events the surface handles and asks exactly the scopes it needs', () => {
    expect(manifest.settings.event_subscriptions.bot_events.sort()).toEqual(['app_home_opened', 'app_mention', 'message.channels', 'message.groups', 'message.im']);
    expect(manifest.oauth_config.scopes.bot.sort()).toEqual(
      ['app_mentions:read', 'channels:history', 'channels:read', 'chat:write', 'commands', 'files:read', 'files:write', 'groups:history', 'groups:read', 'im:history', 'users:read'].sort(),
    );
  });

  test('the Procfile runs node directly so SIGTERM reaches the process', () => {
    expect(readFileSync(join(root, 'Procfile'), 'utf8').trim()).toBe('web: node dist/main.js');
  });
});
