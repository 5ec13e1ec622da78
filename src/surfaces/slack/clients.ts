/**
 * The Web API client for a workspace. The single-workspace app has one (SLACK_BOT_TOKEN); in OAuth
 * mode each workspace has its own, made on first use and cached, with the token its installation
 * holds. A token read is trusted for TOKEN_READ_MS: a token another instance refreshed replaces it by
 * then (the old one stays valid at Slack until it expires).
 */
import type { Logger } from 'pino';
import { createWebClient, type WebClient } from './web';

const TOKEN_READ_MS = 30_000;

export interface TeamClients {
  /** The client that calls the Web API as the bot of `team`. */
  client(team: string): Promise<WebClient>;
  /** The bot token of `team` (file downloads send it themselves). */
  token(team: string): Promise<string>;
  /** The workspace left: its client and token are dropped. */
  forget(team: string): void;
  /** SLACK_API_URL, when set. */
  readonly apiUrl?: string;
}

/** Every workspace is the one SLACK_BOT_TOKEN was made for. */
export function singleWorkspaceClients(client: WebClient, botToken: string): TeamClients {
  return {
    client: async () => client,
    token: async () => botToken,
    forget: () => undefined,
    apiUrl: client.slackApiUrl,
  };
}

/** One client per workspace, its token read from the installation store (see oauth/tokens.ts). */
export class InstalledClients implements TeamClients {
  /**
   * Per workspace, its client (a connection pool, which cannot live in a store) and the token it was
   * made with: re-read from the installation store every TOKEN_READ_MS, so every instance follows a
   * rotation; one entry per installed workspace, holding nothing of its users or channels, and
   * dropped (`forget`) when the workspace leaves.
   */
  private readonly cache = new Map<string, { token: string; client: WebClient; readAt: number }>();

  constructor(
    private readonly botToken: (team: string) => Promise<string>,
    readonly apiUrl: string | undefined,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  async client(team: string): Promise<WebClient> {
    const cached = this.cache.get(team);
    if (cached && this.now() - cached.readAt < TOKEN_READ_MS) return cached.client;
    const token = await this.botToken(team);
    const client = cached?.token === token ? cached.client : createWebClient(token, this.apiUrl, this.log);
    this.cache.set(team, { token, client, readAt: this.now() });
    return client;
  }

  async token(team: string): Promise<string> {
    await this.client(team);
    return (this.cache.get(team) as { token: string }).token;
  }

  forget(team: string): void {
    this.cache.delete(team);
  }
}
