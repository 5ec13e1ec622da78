import type { Logger } from 'pino';
import type { Mailer } from '../mail/mailer';
import type { ChatbotClient } from '../service/client';
import type { V1Client } from '../service/v1-client';
import type { StateStore } from '../state/store';
import type { OfficeWindow } from './handoff/hours/office-hours';
import type { CoreMemory } from './memory';
import type { Offices } from './tenants/office-record';
import type { ChatbotDirectory } from './tenants/directory';
import type { Connection } from './tenants/connections';
import type { RequestTenant, Tenant } from './tenants/tenant';
import type { TenantStore } from '../state/tenant-store';
import type { CommandName, FormResult, Invocation, Place, SurfaceName, SurfacePort } from './surface';

/** Where handoff tickets go: a channel on one of the surfaces (it may differ from the user's). */
export interface HandoffTarget {
  surface: SurfaceName;
  workspace: string;
  channel: string;
}

/** Core's settings, derived from src/deployment/config.ts by main.ts (core never reads the environment). */
export interface CoreConfig {
  /** The chatbot (`serialNumber`) the bridge talks to. */
  chatbotId: string;
  /** Silence between streamed fragments after which an answer is interrupted. */
  answerIdleTimeoutMs: number;
  /** Handoff channel per surface; a surface without one uses the first configured. */
  handoff: Partial<Record<SurfaceName, HandoffTarget>>;
  /** An unclaimed ticket older than this tells the user (it stays open). */
  handoffClaimTimeoutMs: number;
  /** A waiting ticket gets a reminder in its thread this often (at most 3); default 300 s. */
  handoffRemindMs?: number;
  /** Hand off automatically when the service answers `noAnswer` (else: offer the button). */
  handoffOnNoAnswer: boolean;
  /** This process's id: lease owner, distinct per instance even on one host. */
  instanceId: string;
  /** How long this instance's leases last without renewal (INSTANCE_LEASE_S; core/leases.ts). Default 6 s. */
  leaseTtlMs?: number;
  /** Answers come from the embedded demo service (CHATBOT_API_URL=embedded or the shell): `/chatbot show` says so. */
  embeddedService?: boolean;
  /** Conversations, transcripts and tickets expire after this long without activity (RETENTION_DAYS). */
  retentionMs?: number;
  /** Office hours, response targets, round-robin, the day's leads (HANDOFF_HOURS …); always open when absent. */
  office?: OfficeConfig;
  /** Commands and button presses one user may make per minute (USER_RATE_LIMIT); 0 or absent: no limit. */
  userRateLimit?: number;
  /**
   * Surfaces that serve many tenants (Slack installed by OAuth): there the environment's handoff
   * channel, which names no workspace, serves no one, and the environment's chatbot links no tenants
   * into one office.
   */
  manyTenants?: readonly SurfaceName[];
  /**
   * Surfaces whose tenants, all but the operator's office, are guests on the environment's chatbot
   * (Slack installed by OAuth; Discord, whose bot any server may invite): a guest may ask, look
   * listings up, hand off and see its own history and figures, never change the operator's chatbot.
   * Absent: every tenant on the environment's chatbot is the operator's office (one workspace, the shell).
   */
  guestSurfaces?: readonly SurfaceName[];
  /**
   * The operator's own workspace on a guest surface (DISCORD_GUILD_ID); the workspace of the
   * environment's handoff channel there is the operator's too.
   */
  operatorWorkspaces?: Partial<Record<SurfaceName, string>>;
  /** LINK_HOSTS: hosts whose links answers show under their label, besides the listings' own (core/text/links.ts). */
  linkHosts?: readonly string[];
  /**
   * Crash tests' hooks (BRIDGE_TEST_PAUSE_BEFORE_RELAY / BRIDGE_TEST_PAUSE_BEFORE_NOTICES, read by
   * config.ts): stop for good at that point, so a test can kill the process exactly there. Never set in production.
   */
  testPauses?: { beforeRelay?: boolean; beforeNotices?: boolean };
}

/** The variables of handoff around the clock, as core sees them (main.ts derives them from config.ts). */
export interface OfficeConfig {
  /** HANDOFF_HOURS; unset = always open. */
  hours?: OfficeWindow[];
  /** HANDOFF_TIMEZONE: the office's clock until the chatbot's TimeZone is applied from chat (else UTC). */
  timeZone?: string;
  /** HANDOFF_EMAIL: where tickets go by e-mail until the chatbot's TalkToHumanEmail is applied. */
  email?: string;
  /** HANDOFF_FIRST_REPLY_S: target from claim to the agent's first reply. */
  firstReplyMs?: number;
  /** HANDOFF_ESCALATE: Slack user / user-group ids, Discord role ids mentioned when a target is missed. */
  escalate: string[];
  /** HANDOFF_ASSIGN: offer each new ticket to the next available agent in turn. */
  assign: 'round-robin' | 'none';
  /** HANDOFF_OFFER_S: how long one agent's offer lasts before the next is offered the ticket. */
  offerMs: number;
  /** LEADS_DIGEST_HOUR: the local hour the previous day's leads are e-mailed (EmailForDailyLeads). */
  digestHour: number;
}

/** Surfaces by name, so a ticket can go to another surface's handoff channel. */
export interface SurfaceRegistry {
  get(name: SurfaceName): SurfacePort | undefined;
  all(): SurfacePort[];
}

/**
 * The running surface of `place`. Throws when it is not running: a handoff step or notice that
 * needs it fails (and its outbox notice is tried again) rather than going nowhere.
 */
export function surfaceAt(ctx: Pick<CoreContext, 'surfaces'>, place: Place): SurfacePort {
  const surface = ctx.surfaces.get(place.surface);
  if (!surface) throw new Error(`surface ${place.surface} is not running`);
  return surface;
}

/** Everything a core module needs, handed in by main.ts (or by a test). */
export interface CoreContext {
  client: ChatbotClient;
  store: StateStore;
  config: CoreConfig;
  surfaces: SurfaceRegistry;
  log: Logger;
  /** Time source (tests may fake it); epoch ms. */
  now(): number;
  /** SMTP (SMTP_URL); absent: nothing is e-mailed. */
  mailer?: Mailer;
  /** What core keeps in memory for this bridge (caches, the mail outbox): one per context, never module-level. */
  memory: CoreMemory;
  /** Each tenant's own chatbot and handoff channel (`/chatbot connect`); absent: read from the store. */
  offices?: Offices;
  /**
   * Each tenant's chatbot (tenants/directory.ts): its connected one or the default. Absent: every
   * request uses `client` and `config.chatbotId` (core-only tests).
   */
  chatbots?: ChatbotDirectory;
}

/**
 * Whose chatbot a tenant is answered by. `own`: one it connected (`/chatbot connect`), not the
 * environment's. `operator`: the environment's, and the tenant is the operator's office (it connected
 * that chatbot with its keys, it is the server of the deployment's handoff channel or DISCORD_GUILD_ID,
 * or the deployment serves one workspace). `shared`: the environment's, as a guest of the operator: it
 * may ask, look listings up, hand off and read its own history and figures, and change nothing of it.
 */
export type ChatbotKind = 'own' | 'operator' | 'shared';

/**
 * The chatbot a tenant is answered by, and the only place a request finds a chatbot client: which
 * chatbot it is, and whose (`kind`), travel together, so nothing can use the client without knowing
 * whether it is the tenant's own or the operator's.
 */
export type ChatbotHandle =
  | { readonly kind: 'own'; readonly chatbotId: string; readonly client: ChatbotClient }
  | { readonly kind: 'operator'; readonly chatbotId: string; readonly client: ChatbotClient }
  | { readonly kind: 'shared'; readonly chatbotId: string; readonly client: GuestClient };

/**
 * The deployment's shared chatbot as its guests reach it: asking, reading listings, models and their
 * own conversations; none of the calls that change it (settings, listings, chatbots) exist on it.
 */
export type GuestClient = Omit<
  ChatbotClient,
  'editChatbot' | 'createListing' | 'updateListing' | 'deleteListings' | 'v1'
> & {
  readonly v1: Omit<V1Client, 'createChatbot' | 'updateChatbot'>;
};

/** The handle of a tenant whose chatbot may be changed from chat: its own, or the operator's office's. */
export type WritableChatbot = Exclude<ChatbotHandle, { kind: 'shared' }>;

/** The deployment's settings as a request sees them: every one but the default chatbot's id. */
export type TenantConfig = Omit<CoreConfig, 'chatbotId'>;

/**
 * What a request's work may ask of the chatbot directory: its own tenant's connection (read, save,
 * remove: the tenant is bound when the scope is made, tenants/scope.ts) and a live check of keys.
 * Never another tenant's connection or chatbot (`forTenant`), nor the deployment's default.
 */
export interface ConnectionDesk {
  /** Whether a connection can be saved (a STATE_ENCRYPTION_KEY seals it). */
  readonly canSave: boolean;
  /** Whether the deployment's default chatbot answers a tenant that has none of its own. */
  readonly hasDefault: boolean;
  /** The scope's tenant's saved connection (its org's, for a workspace of an org-wide install). */
  current(): Promise<Connection | undefined>;
  save(connection: Connection): Promise<void>;
  /** False when there was nothing to remove. */
  remove(): Promise<boolean>;
  check: ChatbotDirectory['check'];
  connectedKind: ChatbotDirectory['connectedKind'];
}

/**
 * What a request is handed in place of the deployment's context: its tenant, decided once from the
 * platform's authorization; the tenant's own part of the store; and, in a `TenantScope`, its chatbot.
 * The deployment's default client and chatbot id are not in it: a handler cannot reach them, and the
 * compiler says so (test/core/tenant-scope-types.test.ts). Its office settings are read from it
 * (handoff/hours/office.ts's `readOffice`), its handoff channel comes first in `config.handoff`.
 */
export interface UnconnectedScope {
  readonly tenant: RequestTenant;
  /** The tenant whose connection and office serve it (its enterprise, for a workspace of an org-wide install). */
  readonly canonical: Tenant;
  /** The tenant's part of the store (`t:<kind>:<id>:`). */
  readonly view: TenantStore;
  readonly config: TenantConfig;
  /** The deployment's store, for records that are global by design (state/global-keys.ts). */
  readonly store: StateStore;
  readonly surfaces: SurfaceRegistry;
  readonly log: Logger;
  now(): number;
  readonly mailer?: Mailer;
  readonly memory: CoreMemory;
  readonly offices?: Offices;
  readonly chatbots?: ConnectionDesk;
}

/** A request of a tenant that has a chatbot: the scope every handler, turn and ticket step gets. */
export interface TenantScope extends UnconnectedScope {
  readonly chatbot: ChatbotHandle;
}

/** A chatbot by name and whose it is, without its client: what reading a tenant's office needs. */
export type ChatbotNamed = Pick<ChatbotHandle, 'kind' | 'chatbotId'>;

/**
 * A tenant's scope for reading its office (hours, e-mails, rules): its chatbot named, not callable;
 * none where no chatbot serves it (its office then has no chatbot's settings, and never the operator's).
 */
export interface OfficeScope extends UnconnectedScope {
  readonly chatbot?: ChatbotNamed;
}

/**
 * What one slash command does (what it is, its usage and who may run it, is the catalogue's:
 * commands/catalogue.ts). Buttons and forms a command shows come back to it through `actions` and
 * `forms`, keyed by action/form ids that start with the command name (`listings.page`, `listing.create`).
 */
export interface CommandHandler {
  run(ctx: TenantScope, inv: Invocation, args: string): Promise<void>;
  actions?: Record<string, (ctx: TenantScope, inv: Invocation, value: string) => Promise<void>>;
  /**
   * What of it changes the chatbot itself (its settings, listings, chatbots) or reads the operator's
   * account: refused, in one line, to a tenant on the deployment's shared chatbot (bridge.ts).
   */
  operatorOnly?: { subcommands?: readonly string[]; actions?: readonly string[]; forms?: readonly string[] };
  forms?: Record<
    string,
    (ctx: TenantScope, inv: Invocation, state: string, values: Record<string, string>) => Promise<FormResult>
  >;
  /**
   * What works for a tenant that has no chatbot yet (connecting one): its subcommands, and its forms
   * by id. Handed a scope without a chatbot, so it cannot answer with one.
   */
  unconnected?: {
    subcommands: readonly string[];
    run(ctx: UnconnectedScope, inv: Invocation, args: string): Promise<void>;
    forms?: Record<
      string,
      (ctx: UnconnectedScope, inv: Invocation, state: string, values: Record<string, string>) => Promise<FormResult>
    >;
  };
}

/** The handlers of the commands core answers, by name. */
export type CommandHandlers = Partial<Record<CommandName, CommandHandler>>;
