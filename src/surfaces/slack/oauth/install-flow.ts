/**
 * "Add to Slack" on Bolt's own OAuth support: the HTTPReceiver options that make Bolt's
 * InstallProvider serve GET /slack/install (a 302 to Slack's authorize page with the manifest's bot
 * scopes and a state bound to the browser by a cookie) and GET /slack/oauth_redirect (the code
 * exchanged with oauth.v2.access at SLACK_API_URL, the installation stored), and the pages a person
 * sees after: the workspace installed and what to do next, or why it failed (nothing is stored then).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HTTPReceiverOptions, Installation } from '@slack/bolt';
import type { Logger } from 'pino';
import { slackErrorCode } from '../web';
import type { AnyInstallation, SlackInstallations } from './installations';
import { InstallStates } from './install-state';
import { BOT_SCOPES, INSTALL_PATH, REDIRECT_PATH } from './scopes';
import type { WorkspaceTokens } from './tokens';
import type { StateStore } from '../../../state/store';

export interface InstallFlowOptions {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
  apiUrl?: string;
  store: StateStore;
  installations: SlackInstallations;
  tokens: WorkspaceTokens;
  /** After the installation is stored: the installer's first-steps DM (failures are logged, not shown). */
  welcome: (inst: AnyInstallation) => Promise<void>;
  log: Logger;
}

type OAuthReceiverOptions = Pick<
  HTTPReceiverOptions,
  'clientId' | 'clientSecret' | 'stateSecret' | 'scopes' | 'installationStore' | 'installerOptions'
>;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(res: ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
      `<body style="font-family:sans-serif;max-width:40em;margin:3em auto"><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
  );
}

/** The page after a stored installation: the workspace by name, and the next steps. */
export function installedPage(res: ServerResponse, inst: AnyInstallation): void {
  const name = inst.team?.name ?? inst.enterprise?.name ?? inst.team?.id ?? 'your workspace';
  page(
    res,
    200,
    'Chatbot bridge installed',
    `<p>The chatbot bridge is now installed in <b>${escapeHtml(name)}</b>.</p>` +
      '<p>Next, in Slack: run <code>/chatbot connect</code> to connect your chatbot and choose the handoff ' +
      'channel, invite the bot to that channel, and try <code>/help</code>. The bot has sent you these steps ' +
      'in a direct message too.</p>',
  );
}

/** Why the installation did not happen; the person starts again from the install link. */
export function failedPage(res: ServerResponse, error: { code?: string; message: string }): void {
  const refused = slackErrorCode(error);
  const reason =
    error.code === 'bridge_oauth_bad_state' ||
    error.code === 'slack_oauth_invalid_state' ||
    error.code === 'slack_oauth_missing_state'
      ? 'This installation link has expired, was already used, or was opened in another browser.'
      : refused
        ? `Slack refused the installation (${escapeHtml(refused)}).`
        : 'The installation could not be completed.';
  page(
    res,
    400,
    'Installation failed',
    `<p>${reason} Nothing was installed.</p><p>Start again from <a href="${INSTALL_PATH}">${INSTALL_PATH}</a>.</p>`,
  );
}

export function installFlowOptions(o: InstallFlowOptions): OAuthReceiverOptions {
  return {
    clientId: o.clientId,
    clientSecret: o.clientSecret,
    stateSecret: o.stateSecret,
    scopes: [...BOT_SCOPES],
    // Bolt's authorize reads through it: every event, command and action gets its workspace's token.
    installationStore: o.installations.asInstallationStore((q) => o.tokens.installation(q)),
    installerOptions: {
      installPath: INSTALL_PATH,
      redirectUriPath: REDIRECT_PATH,
      directInstall: true,
      stateVerification: true,
      stateStore: new InstallStates(o.store, o.stateSecret),
      clientOptions: o.apiUrl ? { slackApiUrl: o.apiUrl } : {},
      callbackOptions: {
        successAsync: async (inst: Installation, _opts, _req: IncomingMessage, res: ServerResponse) => {
          installedPage(res, inst as AnyInstallation);
          o.log.info({ team: inst.team?.id, enterprise: inst.enterprise?.id }, 'slack: app installed in a workspace');
          await o.welcome(inst as AnyInstallation).catch((err: unknown) => {
            o.log.warn({ code: slackErrorCode(err) ?? (err as Error).message }, 'slack: the installer DM failed');
          });
        },
        failureAsync: async (error, _opts, _req: IncomingMessage, res: ServerResponse) => {
          o.log.warn({ code: error.code, slack: slackErrorCode(error) }, 'slack: an installation failed');
          failedPage(res, error);
        },
      },
    },
  };
}
