/**
 * The port between core and a surface (Slack, Discord, the terminal shell). Core speaks only these types; a surface translates them to and from its platform.
 * Nothing here names a platform SDK.
 */
import type { UntrustedText } from './text/untrusted';
import type { CommandName } from './commands/catalogue';

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
  /** The surface decides: Slack SLACK_ADMIN_USERS, Discord DISCORD_ADMIN_ROLES, shell: always. */
  isAdmin: boolean;
}

/** A message the bridge posted, so it can be edited later. */
export interface MessageRef {
  place: Place;
  /** Slack ts, Discord message id, shell counter. */
  id: string;
}

export interface Button {
  /** Core's action id, handed back unchanged in `BridgeCore.action` (e.g. `answer.retry`). */
  action: string;
  label: string;
  /** Opaque value handed back with the action (core keeps it short: an id). */
  value: string;
  style?: 'primary' | 'danger';
}

/**
 * A rich item (a listing): a card of a Slack carousel (or section+image blocks where the workspace
 * refuses cards), a Discord container, a table row in the shell.
 */
export interface Card {
  title: string;
  url?: string;
  imageUrl?: string;
  fields: Array<{ label: string; value: string }>;
  footer?: string;
  /** A short status in words shown as a badge next to the title ("For sale", "Coming soon"). */
  badge?: string;
  /** One line under the title, for compact cards (a listing: price, beds/baths, status in words). */
  subtitle?: string;
  /** A few words under the subtitle, for compact cards (a listing: its city and description's start). */
  body?: string;
  /** The card's own buttons (a listing: Details, Ask about a viewing). */
  actions?: Button[];
  /**
   * A detailed card's facts grouped as a reader takes them in ("Price and size", "The home", ...);
   * `fields` holds the same facts flat, for surfaces that show no groups.
   */
  groups?: CardGroup[];
  /** A detailed card's photos, shown as a gallery (never as facts). */
  photos?: string[];
}

export interface CardGroup {
  title: string;
  fields: Array<{ label: string; value: string }>;
}

export interface FileUpload {
  name: string;
  mime: string;
  data: Buffer;
  title?: string;
}

export interface OutMessage {
  /**
   * The message's plain text. For answers this is exactly the service's text (for the part this
   * message carries): surfaces put it in Slack's `text` / Discord's `content` unchanged and never
   * append anything to it except while `typing` is set.
   */
  text: string;
  /** The text is Markdown (answers, notices): surfaces may render it in blocks/embeds. */
  markdown?: boolean;
  /** Still streaming: a surface may show a typing mark after the text. */
  typing?: boolean;
  /** A short status line shown under the text, never inside it (e.g. "Answer interrupted ..."). */
  notice?: string;
  cards?: Card[];
  buttons?: Button[];
  /** A way to rate this (complete) answer: Slack's feedback buttons, two buttons elsewhere. */
  feedback?: FeedbackPrompt;
  file?: FileUpload;
}

/** Rating an answer: a press comes back as `BridgeCore.action(inv, action, positive | negative)`, like a button. */
export interface FeedbackPrompt {
  action: string;
  /** The value handed back for a positive vote. */
  positive: string;
  /** The value handed back for a negative vote. */
  negative: string;
}

/** The two buttons a surface without a native rating control shows for `feedback`. */
export function feedbackButtons(f: FeedbackPrompt): Button[] {
  return [
    { action: f.action, label: '👍', value: f.positive },
    { action: f.action, label: '👎', value: f.negative },
  ];
}

/** What an assistant surface (Slack's assistant pane) shows when a new thread opens. */
export interface AssistantIntro {
  /** Posted in the new thread. */
  greeting: string;
  /** 1 to 4 suggestions: `title` is shown, `message` is sent when picked. */
  prompts: Array<{ title: string; message: string }>;
}

export interface FormField {
  name: string;
  label: string;
  kind: 'text' | 'textarea' | 'number' | 'select' | 'boolean' | 'channel';
  /** A key or password: never pre-filled, never kept between a form's steps, never shown back. */
  secret?: boolean;
  required: boolean;
  options?: Array<{ value: string; label: string }>;
  initial?: string;
  hint?: string;
  /** Fields are grouped for surfaces with small forms (Discord: 5 inputs per modal). */
  group: string;
}

export interface FormSpec {
  /** Core's form id, handed back in `BridgeCore.submitForm` (e.g. `listing.create`). */
  id: string;
  title: string;
  /** Opaque state handed back on submit (e.g. the listing key being updated). */
  state: string;
  fields: FormField[];
  submitLabel?: string;
}

export type FormResult = { ok: true; message?: OutMessage } | { ok: false; errors: Record<string, string> };

export interface Attachment {
  /** The platform's file id or URL: whatever `fetchAttachment` needs. */
  id: string;
  name: string;
  mime?: string;
  size?: number;
  url?: string;
}

/** A platform budget a gateway spends before a call (Slack chat.update: 50/min/team), kept in the state store. */
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

/** What core needs from a platform. */
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
  /**
   * How a group of HANDOFF_ESCALATE is written so the platform notifies it (Slack user `U…` or user
   * group `S…`, Discord role): the only group mention the bridge builds. Undefined for an id of another platform.
   */
  mentionGroup?(id: string): string | undefined;
  /**
   * An answer in flight in `place` will need one final edit: until released, interims on the
   * surface's budgets leave it room, and interims sent with `coalesceKey` = `holder` go out at
   * the intervals of the plan. Absent: the surface has no budgets to plan.
   */
  reserveFinal?(place: Place, holder: string): () => void;
  /** The waiting call sent with this coalesceKey becomes a final (its answer just finished). */
  promote?(coalesceKey: string): void;
  fetchAttachment(att: Attachment): Promise<Buffer>;
  /**
   * How long an answer's first message may wait for the answer's first words before it goes up
   * empty (the relay waits; the surface says what its platform's budgets make worth it). Absent: 0.
   */
  readonly firstWordsWaitMs?: number;
  /**
   * Native streaming where the platform offers it here; undefined = use post + edit. With `latest`,
   * the stream starts with the message as it is when the start goes out (read again on a retry):
   * the caller learns what it started with from its last call of `latest`.
   */
  startNativeStream?(
    place: Place,
    first: OutMessage,
    opts?: { latest?: () => OutMessage },
  ): Promise<NativeStream | undefined>;
  /**
   * Finish a native stream left open by another (dead) process: the message ends showing `final`
   * exactly (falls back to a plain edit when the stream is already gone).
   */
  stopNativeStream?(ref: MessageRef, final: OutMessage): Promise<void>;
  /** A link people can open to a message (Slack permalink, Discord message link); undefined when unknown. */
  permalink?(ref: MessageRef): Promise<string | undefined>;
  /** The channel's name as people know it (without #); undefined when unknown. */
  channelName?(place: Place): Promise<string | undefined>;
  /**
   * Removes the bridge's buttons of these core actions from its recent messages in a thread (the
   * "Talk to a human" and "Cancel" buttons that no longer apply); the messages keep their text.
   */
  stripButtons?(thread: Place, actions: string[]): Promise<void>;
  /** Why the bridge cannot post in the channel (not in it, no permission, unknown); undefined: it can. */
  cannotPostIn?(channel: Place): Promise<string | undefined>;
  /** Whether the user is a member of the channel; undefined when the platform cannot tell. */
  isMember?(channel: Place, userId: string): Promise<boolean | undefined>;
  /** The channel's people (no bots, not the bridge) in a stable order; undefined when not cheaply known. */
  channelAgents?(channel: Place): Promise<Actor[] | undefined>;
  /**
   * Show that an answer is being worked on in `place` (Slack: the assistant status "is thinking…");
   * '' clears it. Cosmetic: implementations never throw.
   */
  setStatus?(place: Place, status: string): Promise<void>;
}

/**
 * One user action that a surface hands to core: a slash command, a button click, a form submit.
 * The responder functions talk back to the invoker the way the platform allows for that event.
 */
export interface Invocation {
  surface: SurfacePort;
  /** Where it happened (for `/handoff` on Slack: the channel, no thread). */
  place: Place;
  actor: Actor;
  /** Answer the invoker: ephemeral (only they see it) or public in `place`. */
  reply(msg: OutMessage, opts?: { ephemeral?: boolean }): Promise<MessageRef | undefined>;
  /** Button actions: replace the message that carried the button (listing pages, tickets). */
  update?(msg: OutMessage): Promise<void>;
  /** Open a form, when the event allows one (Slack trigger_id, Discord interaction). */
  openForm?(form: FormSpec): Promise<void>;
  /** The message carrying the clicked button, for actions. */
  source?: MessageRef;
}

/** A message typed by someone in a place the bridge watches. */
export interface IncomingMessage {
  place: Place;
  actor: Actor;
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
  handoffQueue?(viewer: Actor, surface: SurfacePort): Promise<OutMessage | undefined>;
  /** The greeting and suggested prompts of a new assistant thread. */
  assistantIntro?(): Promise<AssistantIntro>;
  /**
   * The agent experience (a user opened the app's DM): the greeting and prompts the first time
   * `user` opens it on a day, undefined on later opens that day.
   */
  dailyWelcome?(place: Place, user: string): Promise<AssistantIntro | undefined>;
}

/**
 * The longest platform Retry-After the bridge waits for (the chatbot service's is capped the same).
 * Past it the call fails as a 429 its caller handles: an hour's wait would hold the answer, its
 * queue and everyone behind it.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Thrown by a surface when the platform refused a call for rate (HTTP 429) after the surface's own
 * bounded retries: the surface's gateway waits `retryAfterMs` and tries again, within its own bound
 * (a Retry-After past MAX_RETRY_AFTER_MS is not waited for: the call fails to its caller).
 */
export class PlatformRateLimitError extends Error {
  constructor(
    readonly retryAfterMs: number,
    message = `rate limited, retry after ${retryAfterMs} ms`,
  ) {
    super(message);
    this.name = 'PlatformRateLimitError';
  }
}

/** The wait a platform asked for (Retry-After) when `err` is its rate refusal; undefined otherwise. */
export function rateLimitDelay(err: unknown): number | undefined {
  if (err instanceof PlatformRateLimitError) return err.retryAfterMs;
  // Duck-typed too: a surface bundled with another copy of the class must still be obeyed.
  if (err instanceof Error && err.name === 'PlatformRateLimitError') {
    const ms = (err as Error & { retryAfterMs?: unknown }).retryAfterMs;
    if (typeof ms === 'number' && Number.isFinite(ms)) return ms;
  }
  return undefined;
}

/** A platform 429 (Retry-After), which the surface's gateway retries itself. */
export function isPlatformRateLimit(err: unknown): boolean {
  return rateLimitDelay(err) !== undefined;
}
