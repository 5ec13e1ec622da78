/**
 * The Bridge: what surfaces call (BridgeCore). It dispatches commands, buttons and forms to their
 * handlers through the one guard pipeline (guards.ts: error reply, flood limit, who may), hands
 * thread messages to conversations or to a handoff, runs the periodic sweeps, and never lets an
 * error reach a surface: the user is told what failed, the log gets the detail.
 */
import { requestTenant } from './tenants/tenant';
import type { Listing } from '../service/schemas/listings';
import { assistantIntro, plainIntro } from './assistant/intro';
import { dailyWelcome } from './assistant/welcome';
import { channelPrompts } from './assistant/channel-prompts';
import { askCommand } from './commands/ask';
import { COMMAND_NAMES } from './commands/catalogue';
import { handoffCommand } from './commands/handoff';
import type { CommandHandler, CommandHandlers, CoreContext, TenantScope, UnconnectedScope } from './context';
import { Conversations } from './conversations/engine';
import type { AnswerRelay } from './conversations/relay-port';
import { Handoffs } from './handoff/handoffs';
import { DEFAULT_REMIND_MS } from './handoff/model';
import { commandGuards, type Guard, pressGuards, runGuards, tell } from './guards';
import { leaseTimings } from './leases';
import { splitHead } from './commands/grammar';
import { SHARED_CHATBOT_REFUSAL } from './tenants/shared-chatbot';
import { NOT_CONNECTED } from './tenants/directory';
import { chatbotFor, scopeOf, unconnectedScope } from './tenants/scope';
import { recoverAbandonedAnswers } from './relay/inflight';
import { loggedFailure, sentence } from './user-messages';
import { leaveTenant, leftBefore, stopLeftWork } from './tenants/leave';
import { listingById, listingsAt } from './listings/url-index';
import { listingPreview } from './listings/preview';
import { settleOldLayout } from '../state/old-layout';
import type {
  Actor,
  AssistantIntro,
  BridgeCore,
  CommandName,
  FormResult,
  IncomingMessage,
  Invocation,
  ListingPreview,
  OutMessage,
  Place,
  SurfacePort,
  TenantLeaving,
} from './surface';

export interface BridgeRelay extends AnswerRelay {
  /** Finish or mark interrupted every answer in flight, within the deadline (ms from now). */
  shutdown?(timeoutMs: number): Promise<void>;
}

export interface BridgeDeps {
  relay: BridgeRelay;
  /** The other commands (listings, listing, chatbot, analytics, history); ask and handoff are built in. */
  commands?: CommandHandlers;
  /**
   * The bridge marks answers whose instance died mid-stream (recoverAbandonedAnswers) on start and
   * every third of a lease (core/leases.ts); false turns that off.
   */
  recoverInflight?: boolean;
  /** Replaces that recovery (tests, or a caller with its own loop). */
  recoverAbandoned?: () => Promise<unknown>;
}

type ActionFn = (ctx: TenantScope, inv: Invocation, value: string) => Promise<void>;
type FormFn = NonNullable<CommandHandler['forms']>[string];

/** How often pending ticket notices are looked for (a lease held by a dead instance runs out first). */
const NOTICE_DRAIN_EVERY_MS = 5_000;
const DIGEST_CHECK_EVERY_MS = 60_000;

export class Bridge implements BridgeCore {
  readonly conversations: Conversations;
  readonly handoffs: Handoffs;
  private readonly handlers = new Map<CommandName, CommandHandler>();
  /** Buttons and forms by id, with the command they belong to (whose admin rule applies to them). */
  private readonly actions = new Map<string, { command: CommandName; fn: ActionFn }>();
  private readonly forms = new Map<string, { command: CommandName; fn: FormFn }>();
  private readonly timers: NodeJS.Timeout[] = [];
  private started = false;
  private readonly commandGuards: Guard[];
  private readonly pressGuards: Guard[];

  constructor(
    private readonly ctx: CoreContext,
    private readonly deps: BridgeDeps,
  ) {
    this.commandGuards = commandGuards(ctx);
    this.pressGuards = pressGuards(ctx);
    this.handoffs = new Handoffs(ctx);
    this.conversations = new Conversations(ctx, deps.relay, this.handoffs);
    const all: CommandHandlers = {
      ...deps.commands,
      ask: askCommand(this.conversations),
      handoff: handoffCommand(this.conversations, this.handoffs),
    };
    for (const command of COMMAND_NAMES) {
      const handler = all[command];
      if (!handler) continue;
      this.handlers.set(command, handler);
      for (const [id, fn] of Object.entries(handler.actions ?? {})) this.actions.set(id, { command, fn });
      for (const [id, fn] of Object.entries(handler.forms ?? {})) this.forms.set(id, { command, fn });
    }
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    // Once, not per answer: whether any read must still look for a record at its key of before the
    // tenants' parts (until settled, every read does).
    settleOldLayout(this.ctx.store, this.ctx.now()).catch((err: unknown) =>
      this.ctx.log.warn({ err }, 'could not settle whether records of the old layout remain'),
    );
    const every = (ms: number, job: () => Promise<unknown>, what: string): void => {
      const run = (): void => {
        // Real time, not the context's clock (a test's): what the bench reads as each sweep's cost.
        const started = performance.now();
        job().then(
          () => this.ctx.log.debug({ sweep: what, ms: Math.round(performance.now() - started) }, 'sweep done'),
          (err: unknown) => this.ctx.log.error({ err }, `${what} failed`),
        );
      };
      run();
      const timer = setInterval(run, ms);
      timer.unref();
      this.timers.push(timer);
    };
    const handoffMs = Math.min(
      this.ctx.config.handoffClaimTimeoutMs,
      this.ctx.config.handoffRemindMs ?? DEFAULT_REMIND_MS,
    );
    const sweepMs = Math.max(50, Math.min(15_000, Math.floor(handoffMs / 4)));
    every(sweepMs, () => this.handoffs.sweepUnclaimed(), 'handoff sweep (claim timeout, reminders)');
    // Right away (notices a restart left pending) and then often (those of an instance that died).
    every(NOTICE_DRAIN_EVERY_MS, () => this.handoffs.drain(), 'handoff notice outbox');
    // The day's leads: checked every minute, sent once per day across instances (late after a restart).
    every(DIGEST_CHECK_EVERY_MS, () => this.handoffs.hours.digest(), 'daily leads e-mail');
    // A dead instance's answers and threads are found within one sweep of their leases running out.
    const lease = leaseTimings(this.ctx.config.leaseTtlMs);
    every(lease.sweepMs, () => this.conversations.sweep(), 'conversation queue sweep');
    // A tenant that left through another instance: this one's answers for it stop, as often as an
    // answer renews its lease.
    every(lease.renewMs, () => stopLeftWork(this.ctx), 'answers of tenants that left');
    const recover = this.deps.recoverAbandoned ?? this.defaultRecovery();
    if (recover) every(lease.sweepMs, recover, 'abandoned-answer recovery');
  }

  private defaultRecovery(): (() => Promise<unknown>) | undefined {
    if (this.deps.recoverInflight === false) return undefined;
    const { store, log, config, surfaces } = this.ctx;
    let first = true;
    // The answers this process is marking: a sweep leaves them to the one marking them.
    const busy = new Set<string>();
    return () => {
      // On the first sweep, answers recorded under this instance's own id are from before a restart,
      // and every record is walked once (those an older version wrote without the due index).
      const opts = first ? { ownedBy: config.instanceId } : {};
      first = false;
      return recoverAbandonedAnswers(
        {
          store,
          surfaces: (n) => surfaces.get(n),
          log,
          instanceId: config.instanceId,
          now: this.ctx.now,
          leaseTtlMs: leaseTimings(config.leaseTtlMs).ttlMs,
          busy,
          dropped: (rec) => leftBefore(this.ctx, rec),
        },
        opts,
      );
    };
  }

  /** Stops timers and new work; answers in flight finish or are marked interrupted within `timeoutMs`. */
  async stop(timeoutMs = 8000): Promise<void> {
    for (const t of this.timers.splice(0)) clearInterval(t);
    // Durations on real timers, not instants: a test's fake clock must not stretch or cut the shutdown.
    await Promise.all([
      this.conversations.stop(timeoutMs - 1000),
      this.deps.relay.shutdown?.(Math.max(0, timeoutMs - 500)),
    ]);
  }

  /** A tenant left: its answers stop on every instance, then its records are deleted (tenants/leave.ts). */
  async leave(leaving: TenantLeaving): Promise<void> {
    const { surface, workspace, ...opts } = leaving;
    // The environment's chatbot serves every tenant without its own: one that connected it by name
    // does not take its applied settings with it.
    await leaveTenant(this.ctx, requestTenant({ surface, workspace }), {
      ...opts,
      keepChatbots: [this.ctx.config.chatbotId],
    });
  }

  async command(inv: Invocation, name: CommandName, args: string): Promise<void> {
    const handler = this.handlers.get(name);
    const available = [...this.handlers.keys()].map((n) => `/${n}`).join(', ');
    const g = {
      inv,
      what: `/${name}`,
      command: handler ? name : undefined,
      gone: `/${name} is not available here. Commands: ${available}`,
      args,
    };
    const head = splitHead(args).head.toLowerCase();
    const unconnected = handler?.unconnected?.subcommands.includes(head)
      ? (ctx: UnconnectedScope) => handler.unconnected!.run(ctx, inv, args)
      : undefined;
    const writes = operatorOnly(handler, 'subcommands', head);
    await runGuards(this.commandGuards, g, () =>
      this.asTenant(inv, { unconnected, writes }, (ctx) => handler!.run(ctx, inv, args)),
    );
  }

  /**
   * Runs `work` in the scope of the invoker's tenant (its chatbot, its handoff channel, its part of
   * the store): never with the deployment's context. A tenant without a chatbot is told so, unless
   * the work is one that needs none (connecting one: `unconnected`, handed a scope without a
   * chatbot); a guest on the deployment's shared chatbot is refused, in one line, what changes the
   * operator's chatbot.
   */
  private async asTenant(
    inv: Invocation,
    what: { unconnected: ((ctx: UnconnectedScope) => Promise<void>) | undefined; writes: boolean },
    work: (ctx: TenantScope) => Promise<void>,
  ) {
    const scope = await scopeOf(this.ctx, inv.tenant);
    if (scope) {
      if (what.writes && scope.chatbot.kind === 'shared') return tell(this.ctx, inv, { text: SHARED_CHATBOT_REFUSAL });
      return work(scope);
    }
    if (what.unconnected) return what.unconnected(await unconnectedScope(this.ctx, inv.tenant));
    await tell(this.ctx, inv, { text: NOT_CONNECTED });
  }

  async message(msg: IncomingMessage, surface: SurfacePort): Promise<boolean> {
    try {
      const ticketId = await this.handoffs.ticketForThread(msg.place);
      if (ticketId) {
        // No seen-mark first (a crash after it would lose the message): the relay goes through the
        // notice outbox under the message id, so a redelivery is carried out once.
        await this.handoffs.relayFromAgent(ticketId, msg, surface);
        return true;
      }
      if (msg.startsConversation && !(await chatbotFor(this.ctx, msg.tenant))) {
        await surface.notify(msg.place, msg.actor, { text: NOT_CONNECTED });
        return true;
      }
      return await this.conversations.onMessage(msg, surface);
    } catch (err) {
      const told = loggedFailure(this.ctx.log, err, { place: msg.place }, 'message handling failed');
      await surface
        .notify(msg.place, msg.actor, {
          text: `Sorry, I could not take your message: ${sentence(told)} Please send it again.`,
        })
        .catch((e: unknown) => this.ctx.log.error({ err: e }, 'could not report a message failure'));
      return true;
    }
  }

  /**
   * The scope of the tenant of `place`, where a surface hands core a place rather than a request (an
   * assistant thread, a link to unfurl): the place is the event's own, so its tenant is decided here
   * once, as a surface decides a request's. Undefined when the tenant has no chatbot.
   */
  private async placeScope(place: Place): Promise<TenantScope | undefined> {
    return scopeOf(this.ctx, requestTenant(place));
  }

  /** The greeting and suggested prompts of a new assistant thread (assistant/intro.ts). */
  async assistantIntro(place: Place): Promise<AssistantIntro> {
    // The listings of the thread's tenant's chatbot; a tenant without one gets the plain greeting.
    const scope = await this.placeScope(place);
    return scope ? assistantIntro(scope) : plainIntro();
  }

  /** The agent experience's greeting, once per user per day (assistant/welcome.ts). */
  async dailyWelcome(place: Place, user: string): Promise<AssistantIntro | undefined> {
    const scope = await this.placeScope(place);
    return scope ? dailyWelcome(scope, user) : undefined;
  }

  /** Prompts about the channel a user has open beside the agent (assistant/channel-prompts.ts). */
  async channelPrompts(place: Place, looking: string | undefined): Promise<AssistantIntro['prompts']> {
    // Read from the tenant's part of the store only: no chatbot is asked.
    const scope = await unconnectedScope(this.ctx, requestTenant(place));
    return channelPrompts(scope, looking ? { ...place, channel: looking } : undefined);
  }

  /** Pasted links that are the tenant's listings (listings/url-index.ts), as previews. */
  async listingPreviews(place: Place, urls: string[]): Promise<Map<string, ListingPreview>> {
    const scope = await this.placeScope(place);
    const found = scope ? await listingsAt(scope, urls) : new Map<string, Listing>();
    return new Map([...found].map(([url, l]) => [url, listingPreview(l)]));
  }

  async listingPreview(place: Place, id: string): Promise<ListingPreview | undefined> {
    const scope = await this.placeScope(place);
    const l = scope ? await listingById(scope, id) : undefined;
    return l ? listingPreview(l) : undefined;
  }

  async action(inv: Invocation, action: string, value: string): Promise<void> {
    const found = this.actions.get(action);
    const gone = 'This button has expired or is no longer supported. Run the command again.';
    const g = { inv, what: 'that button', command: found?.command, gone };
    const writes = found ? operatorOnly(this.handlers.get(found.command), 'actions', action) : false;
    await runGuards(this.pressGuards, g, () =>
      this.asTenant(inv, { unconnected: undefined, writes }, (ctx) => found!.fn(ctx, inv, value)),
    );
  }

  async submitForm(
    inv: Invocation,
    formId: string,
    state: string,
    values: Record<string, string>,
  ): Promise<FormResult> {
    const found = this.forms.get(formId);
    const g = {
      inv,
      what: 'saving the form',
      command: found?.command,
      gone: 'This form has expired. Run the command again.',
    };
    // Refused or failed: the person was told, and the form closes.
    let result: FormResult = { ok: true };
    const handler = found ? this.handlers.get(found.command) : undefined;
    const unconnectedForm = handler?.unconnected?.forms?.[formId];
    const what = {
      unconnected: unconnectedForm
        ? async (ctx: UnconnectedScope) => {
            result = await unconnectedForm(ctx, inv, state, values);
          }
        : undefined,
      writes: operatorOnly(handler, 'forms', formId),
    };
    await runGuards(this.pressGuards, g, () =>
      this.asTenant(inv, what, async (ctx) => {
        result = await found!.fn(ctx, inv, state, values);
      }),
    );
    return result;
  }

  /** Slack's App Home: the handoff queue for members of the handoff channel and admins. */
  async handoffQueue(viewer: Actor, surface: SurfacePort, workspace: string): Promise<OutMessage | undefined> {
    // The App Home's event names the workspace it was opened in: its tenant is decided here, once.
    const tenant = requestTenant({ surface: surface.name, workspace });
    if (await this.handoffs.refusal('queue', { actor: viewer, surface, tenant })) return undefined;
    // The workspace's own tickets only.
    return this.handoffs.queueMessage(tenant);
  }
}

/** Whether the handler says this subcommand, button or form changes the operator's chatbot (CommandHandler.operatorOnly). */
function operatorOnly(
  handler: CommandHandler | undefined,
  kind: 'subcommands' | 'actions' | 'forms',
  id: string,
): boolean {
  return handler?.operatorOnly?.[kind]?.includes(id) ?? false;
}
