/**
 * The port between core and a surface (Slack, Discord, the terminal shell). Core speaks only these types; a surface translates them to and from its platform.
 * Nothing here names a platform SDK.
 */
import type { UntrustedText } from './text/untrusted';
import type { CommandName } from './commands/catalogue';
import type { RequestTenant } from '../state/tenant-store';

export {
  isPlatformRateLimit,
  MAX_RETRY_AFTER_MS,
  PlatformRateLimitError,
  rateLimitDelay,
} from './platform-rate-limit';
export { feedbackButtons } from './content';
export type {
  AssistantIntro,
  Attachment,
  Button,
  Card,
  CardGroup,
  DataTable,
  FeedbackPrompt,
  FileUpload,
  FormField,
  FormResult,
  FormSpec,
  ListingPreview,
  OutMessage,
  TrendChart,
} from './content';
import type { AssistantIntro, Attachment, FormResult, FormSpec, ListingPreview, OutMessage } from './content';

/** Every surface the bridge has: the one list (stored places are checked against it). */
export const SURFACE_NAMES = ['slack', 'discord', 'shell'] as const;
export type SurfaceName = (typeof SURFACE_NAMES)[number];

/**
 * Where something lives on a surface. A conversation is keyed by (surface, workspace, channel,
 * thread). `thread` is the platform's thread id (Slack: the root message's ts; Discord: the thread
 * channel's id; shell: a counter). Absent means the channel itself.
 */
export interface Place {
  surface: SurfaceName;
  /** Slack team id, Discord guild id, 'local' for the shell. */
  workspace: string;
  channel: string;
  thread?: string;
}

/** A person (or bot) acting on a surface. */
export interface Actor {
  id: string;
  /** Display name, used when core names authors (handoff relay, tickets). */
  name: string;
  /**
   * The surface decides: Slack workspace admins and owners and SLACK_ADMIN_USERS, Discord members with
   * Manage Server and DISCORD_ADMIN_ROLES, shell: always.
   */
  isAdmin: boolean;
  /**
   * An admin or owner of the whole org an org-wide install serves (Slack's is_org_admin /
   * is_org_owner): only they change the connection its workspaces share. Absent: not one.
   */
  orgAdmin?: boolean;
}

/** A person an answer is for (a native stream is addressed to them). */
export interface Person {
  id: string;
  name: string;
}

/** A message the bridge posted, so it can be edited later. */
export interface MessageRef {
  place: Place;
  /** Slack ts, Discord message id, shell counter. */
  id: string;
}

/**
 * A platform budget a surface's gateway spends before a call (e.g. Slack chat.update: 50 per minute
 * per team). Budgets live in the state store, so one key is one budget across instances.
 */
export interface RateBudget {
  key: string;
  limit: number;
  windowMs: number;
  /**
   * false: no final reservation nor interim plan on this budget (a safety bucket under a tighter
   * budget). Otherwise budgets with a long window get both (see surfaces/budgets/plan.ts).
   */
  plan?: boolean;
  /**
   * Under load, about how many steps an answer's message grows in on this budget, counting its
   * first words (the plan's default otherwise; see FinalsPlan.loadStepMs).
   */
  loadSteps?: number;
}

/**
 * How urgent a platform call is. `final`: what a user must see (an answer's final text, a reply, a
 * button's result, a new message); `interim`: a streaming update that may wait for its turn.
 */
export type Priority = 'final' | 'interim';

/** How a surface's gateway schedules one post or edit. */
export interface SendOptions {
  /** Default `final`. */
  priority?: Priority;
  /**
   * Names the caller's stream of calls (the relay: one answer). A waiting call with this key can be
   * promoted (`promote`), and interims with it go out at the intervals the answer's registration
   * (`reserveFinal`) plans.
   */
  coalesceKey?: string;
  /**
   * Read when the call actually goes out, after waiting for budget: what is sent instead of the
   * message given (so a call that waited carries the newest text).
   */
  latest?: () => OutMessage;
}

export interface SurfaceLimits {
  /** Longest plain text of one message the relay may send (Slack answers: 3,000; Discord: 2,000). */
  maxMessageLength: number;
  /** Most inputs in one form (Slack: 100; Discord: 5). */
  maxFormFields: number;
  /** Listings on one page of a list (Slack: a carousel's 10; Discord: 5 containers in one message). */
  cardsPerPage?: number;
}

/** Native streaming of one message (Slack chat.startStream/appendStream/stopStream). */
export interface NativeStream {
  readonly ref: MessageRef;
  /**
   * Appends `text`; with `latest`, what is appended is read when the call goes out instead (the
   * newest text after waiting for budget). Resolves to the text appended.
   */
  append(text: string, opts?: { priority?: Priority; coalesceKey?: string; latest?: () => string }): Promise<string>;
  stop(finalMessage?: OutMessage): Promise<void>;
  /** When the platform will expire the stream (the relay rotates before then). */
  readonly expiresAt: number;
}

/**
 * Native streaming of a message (Slack chat.startStream/appendStream/stopStream), where a surface
 * has it (`SurfacePort.streaming`).
 */
export interface StreamingPort {
  /**
   * A native stream here, or undefined to use post + edit for this answer (refused, or its budgets
   * spent). With `latest`, the stream starts with the message as it is when the start goes out
   * (read again on a retry): the caller learns what it started with from its last call of `latest`.
   * `for`: whom the answer is for (the conversation's asker; Slack addresses the stream to them).
   */
  startNativeStream(
    place: Place,
    first: OutMessage,
    opts?: { latest?: () => OutMessage; for?: Person },
  ): Promise<NativeStream | undefined>;
  /**
   * Finish a native stream left open by another (dead) process: the message ends showing `final`
   * exactly (falls back to a plain edit when the stream is already gone). `keepStreamed`: `final.text`
   * may be behind what the stream shows (a crashed answer's record lags its appends), so the stream
   * keeps its text and only what follows the text (notice, buttons) is added; the plain edit with
   * `final` remains the fallback when the stream is gone.
   */
  stopNativeStream(ref: MessageRef, final: OutMessage, opts?: { keepStreamed?: boolean }): Promise<void>;
}

/** The platform budgets an answer plans with (the surface's gateway spends them). */
export interface BudgetPort {
  /**
   * An answer in flight in `place` will need one final edit: until released, interims on the
   * surface's budgets leave it room, and interims sent with `coalesceKey` = `holder` go out at
   * the intervals of the plan.
   */
  reserveFinal(place: Place, holder: string): () => void;
  /** The waiting call sent with this coalesceKey becomes a final (its answer just finished). */
  promote(coalesceKey: string): void;
  /**
   * How long an answer's first message may wait for the answer's first words before it goes up
   * empty (the relay waits; the surface says what its platform's budgets make worth it).
   */
  readonly firstWordsWaitMs: number;
}

/** What the platform can tell about its people, channels and messages (tickets, offers, the App Home). */
export interface DirectoryPort {
  /** A link people can open to a message (Slack permalink, Discord message link); undefined when unknown. */
  permalink(ref: MessageRef): Promise<string | undefined>;
  /** The channel's name as people know it (without #); undefined when unknown. */
  channelName(place: Place): Promise<string | undefined>;
  /** Whether the user is a member of the channel; undefined when the platform cannot tell. */
  isMember(channel: Place, userId: string): Promise<boolean | undefined>;
  /** Why the bridge cannot post in the channel (not in it, no permission, unknown); undefined: it can. */
  cannotPostIn(channel: Place): Promise<string | undefined>;
  /** The channel's people (no bots, not the bridge) in a stable order; undefined when not cheaply known. */
  channelAgents(channel: Place): Promise<Actor[] | undefined>;
  /**
   * How a group of HANDOFF_ESCALATE is written so the platform notifies it (Slack user `U…` or user
   * group `S…`, Discord role): the only group mention the bridge builds. Undefined for another platform's id.
   */
  mentionGroup(id: string): string | undefined;
  /**
   * Removes the bridge's buttons of these core actions from its recent messages in a thread (the
   * "Talk to a human" and "Cancel" buttons that no longer apply); the messages keep their text.
   */
  stripButtons(thread: Place, actions: string[]): Promise<void>;
}

/** Shows that an answer is being worked on (Slack's assistant status "is thinking…"). */
export interface StatusPort {
  /** '' clears it. Cosmetic: implementations never throw. */
  setStatus(place: Place, status: string): Promise<void>;
}

/**
 * What core needs from a platform: messaging, and the capabilities the surface hands over once,
 * when it is made, where its platform has them (where not: core/capabilities.ts's `NO_*`). Core
 * calls them without asking first; only `streaming` may be absent, and an answer decides once.
 */
export interface SurfacePort {
  readonly name: SurfaceName;
  readonly limits: SurfaceLimits;
  /**
   * Every call below goes through the surface's one outbound path (its gateway), which spends the
   * platform's budgets by priority: callers never wait for budget themselves.
   */
  post(place: Place, msg: OutMessage, opts?: SendOptions): Promise<MessageRef>;
  edit(ref: MessageRef, msg: OutMessage, opts?: SendOptions): Promise<void>;
  /**
   * Start a conversation thread in `place.channel` with a root message (Slack: a channel message whose
   * ts becomes thread_ts; Discord: a message and a thread on it; shell: a new thread number).
   */
  startThread(place: Place, root: OutMessage, title: string): Promise<{ thread: Place; root: MessageRef }>;
  /** A message only `user` sees (ephemeral where the platform has it, a DM or plain reply otherwise). */
  notify(place: Place, user: Actor, msg: OutMessage): Promise<void>;
  /** How a user is written so the platform notifies them (Slack `<@U1>`, Discord `<@1>`). */
  mention(user: Actor): string;
  fetchAttachment(att: Attachment): Promise<Buffer>;
  /** Native streaming where the platform offers it; undefined: answers are posted and edited. */
  readonly streaming: StreamingPort | undefined;
  readonly budgets: BudgetPort;
  readonly directory: DirectoryPort;
  readonly status: StatusPort;
}

/**
 * Who and where, for one inbound event: built once by the surface that received it, and carried by
 * core to the port calls that need it. Nothing about who acts or whom an answer is for is kept
 * anywhere else (no "last user" per channel, no per-call context).
 */
export interface BridgeRequest {
  /**
   * Whose installation: the Slack team (or enterprise), the Discord guild ('@me' for DMs), the shell;
   * `requestTenant(place)` (core/tenants/tenant.ts), the value that opens the tenant's part of the store.
   */
  tenant: RequestTenant;
  /**
   * The surface it came through, bound to the event where the platform answers through it (a
   * Discord interaction: the thread's root is the command's reply, a notice to the invoker ephemeral).
   */
  surface: SurfacePort;
  /** Where it happened (for `/handoff` on Slack: the channel, no thread). */
  place: Place;
  /** Who acted: ran the command, pressed the button, wrote the message. */
  actor: Actor;
  /**
   * Whom the answer is for. The surface sets the actor; an answer in a conversation is for the
   * conversation's asker (core addresses it so when it answers).
   */
  for: Person;
}

/**
 * One user action that a surface hands to core: a slash command, a button click, a form submit.
 * The responder functions talk back to the invoker the way the platform allows for that event.
 */
export interface Invocation extends BridgeRequest {
  /** Answer the invoker: ephemeral (only they see it) or public in `place`. */
  reply(msg: OutMessage, opts?: { ephemeral?: boolean }): Promise<MessageRef | undefined>;
  /** Button actions: replace the message that carried the button (listing pages, tickets). */
  update?(msg: OutMessage): Promise<void>;
  /** Open a form, when the event allows one (Slack trigger_id, Discord interaction). */
  openForm?(form: FormSpec): Promise<void>;
  /** The message carrying the clicked button, for actions. */
  source?: MessageRef;
  /**
   * Files given with the command (Discord: the photos of `/ask`'s form, a File Upload): `/ask` asks
   * about them with its question, as a thread message's attachments are.
   */
  attachments?: Attachment[];
}

/** A message typed by someone in a place the bridge watches. */
export interface IncomingMessage extends BridgeRequest {
  /** What they wrote: untrusted (shown as text, never obeyed), cut at the platform's maximum by the surface. */
  text: UntrustedText;
  /** The platform's id of the message: a redelivery carries the same id and is answered once. */
  id: string;
  attachments: Attachment[];
  /** A mention or a DM: start a conversation here if none exists. Plain thread messages continue one. */
  startsConversation: boolean;
}

/** The slash commands: derived from the one catalogue (commands/catalogue.ts). */
export type { CommandName };

/** A tenant that left, as its surface saw it (BridgeCore.leave). */
export interface TenantLeaving {
  surface: SurfaceName;
  /** Slack team (or enterprise) id, Discord guild id. */
  workspace: string;
  /** What the surface saw (app_uninstalled, tokens_revoked, GUILD_DELETE): logged. */
  why: string;
  /** The surface knew it (its installation was there): the leaving is logged even with nothing else left. */
  known?: boolean;
  /**
   * The surface's own keys of the tenant and of the places found in its records (deleted too);
   * `unindexed`: keys an older version wrote may remain (core/tenants/unindexed.ts), looked for too.
   */
  surfaceKeys?: (places: Place[], unindexed: boolean) => string[] | Promise<string[]>;
  /**
   * Workspaces its installation served that leave with it (a Slack org-wide install's teams, whose
   * places name the team): each as a tenant of its own, with its own surface keys; logged in the same line.
   */
  served?: ReadonlyArray<{
    workspace: string;
    surfaceKeys?: (places: Place[], unindexed: boolean) => string[] | Promise<string[]>;
  }>;
}

/** What surfaces call. Implemented by core. */
export interface BridgeCore {
  command(inv: Invocation, name: CommandName, args: string): Promise<void>;
  /** Returns false when the message is not for the bridge (unknown thread, bot chatter). */
  message(msg: IncomingMessage, surface: SurfacePort): Promise<boolean>;
  action(inv: Invocation, action: string, value: string): Promise<void>;
  submitForm(inv: Invocation, formId: string, state: string, values: Record<string, string>): Promise<FormResult>;
  /**
   * The handoff queue as `viewer` may see it on `surface` (Slack's App Home): undefined when the
   * viewer is neither a member of the handoff channel nor an admin.
   */
  handoffQueue?(viewer: Actor, surface: SurfacePort, workspace: string): Promise<OutMessage | undefined>;
  /** The greeting and suggested prompts of a new assistant thread (at `place`: its tenant's chatbot). */
  assistantIntro?(place?: Place): Promise<AssistantIntro>;
  /**
   * The agent experience (a user opened the app's DM): the greeting and prompts the first time
   * `user` opens it on a day, undefined on later opens that day.
   */
  dailyWelcome?(place: Place, user: string): Promise<AssistantIntro | undefined>;
  /**
   * The agent experience: prompts about the channel `looking` the user has open (its open ticket, the
   * listings answers there named), for `place`'s tenant; generic ones without a channel of its own.
   */
  channelPrompts?(place: Place, looking: string | undefined): Promise<AssistantIntro['prompts']>;
  /**
   * The listings of the tenant of `place` among `urls` (pasted links), keyed by the URL as posted; a
   * link that is no listing is left out. Read from the tenant's URL index (no service call while it is fresh).
   */
  listingPreviews?(place: Place, urls: string[]): Promise<Map<string, ListingPreview>>;
  /** One listing of the tenant of `place` by its id (the details of a link's preview). */
  listingPreview?(place: Place, id: string): Promise<ListingPreview | undefined>;
  /**
   * A tenant left (Slack app_uninstalled or tokens_revoked, Discord GUILD_DELETE): its answers in
   * flight stop on every instance (no further platform call, none marked), then its records are
   * deleted; logged once. Resolves when this instance's answers have stopped and the records are gone.
   */
  leave?(leaving: TenantLeaving): Promise<void>;
}
