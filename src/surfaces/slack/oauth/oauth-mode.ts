/**
 * What OAuth mode adds to the Slack surface: the installations in the state store (sealed), each
 * workspace's token (refreshed when it rotates), a Web API client per workspace, the receiver options
 * of Bolt's install pages, and the periodic refresh sweep.
 */
import type { Logger } from 'pino';
import type { SecretBox } from '../../../state/secret-box';
import type { StateStore } from '../../../state/store';
import { InstalledClients } from '../clients';
import { type InstallFlowOptions, installFlowOptions } from './install-flow';
import { SlackInstallations } from './installations';
import { WorkspaceTokens } from './tokens';

/** SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET, the key that seals tokens, and the clock. */
export interface SlackOAuthOptions {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
  box: SecretBox;
  instanceId: string;
  now: () => number;
}

/** How often every installation is checked for a token that is due to be refreshed. */
const SWEEP_MS = 5 * 60 * 1000;

export interface OAuthWorkspaces {
  installations: SlackInstallations;
  tokens: WorkspaceTokens;
  clients: InstalledClients;
  receiverOptions(welcome: InstallFlowOptions['welcome']): ReturnType<typeof installFlowOptions>;
  /** The refresh sweep runs until stop(). */
  start(): void;
  stop(): void;
}

export function oauthWorkspaces(
  o: SlackOAuthOptions & { store: StateStore; apiUrl?: string; log: Logger },
): OAuthWorkspaces {
  const installations = new SlackInstallations(o.store, o.box, o.now);
  const tokens = new WorkspaceTokens({ ...o, installations });
  const clients = new InstalledClients((team) => tokens.botToken(team), o.apiUrl, o.log, o.now);
  let timer: NodeJS.Timeout | undefined;
  return {
    installations,
    tokens,
    clients,
    receiverOptions: (welcome) => installFlowOptions({ ...o, installations, tokens, welcome }),
    start() {
      const sweep = (): void => {
        tokens.refreshDue().catch((err: unknown) => o.log.warn({ err }, 'slack: the token refresh sweep failed'));
      };
      // Once at the start too: the first sweep walks every installation (those an older version wrote
      // without the index), a start-up cost rather than one five minutes later.
      sweep();
      timer = setInterval(sweep, SWEEP_MS);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
