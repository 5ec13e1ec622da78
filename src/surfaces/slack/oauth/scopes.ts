/**
 * The bot scopes "Add to Slack" asks for: manifest.yml's `oauth_config.scopes.bot`, the one list
 * (test/surfaces/slack/oauth-scopes.test.ts fails when the two differ).
 */
export const BOT_SCOPES: readonly string[] = [
  'commands',
  'chat:write',
  'app_mentions:read',
  'channels:history',
  'groups:history',
  'im:history',
  'files:read',
  'files:write',
  'users:read',
  'channels:read',
  'groups:read',
  'assistant:write',
  'links:read',
  'links:write',
];

/** Where the install link and Slack's redirect land on the app's HTTP server. */
export const INSTALL_PATH = '/slack/install';
export const REDIRECT_PATH = '/slack/oauth_redirect';
