/**
 * Command tests call one command handler directly, on the one core harness (test/support/core-harness.ts):
 * the real local chatbot service, its client, an in-memory store and a TestSurface; invocations record
 * what the command said.
 */
import type { CommandHandler, CoreContext, TenantScope } from '../../../src/core/context';
import type { Actor, FormResult, MessageRef, OutMessage, Place } from '../../../src/core/surface';
import { type RecordedInvocation, startCoreHarness } from '../../support/core-harness';
import type { TestSurface } from '../../support/test-surface';
import { scopeAt } from '../../support/tenant-scope';

export interface Recorded extends RecordedInvocation {
  /** The last reply or update; throws when the command said nothing. */
  last(): OutMessage;
}

export interface CommandEnv {
  ctx: CoreContext;
  /** The scope of the channel's tenant, as the bridge hands it to a handler. */
  scope(): Promise<TenantScope>;
  surface: TestSurface;
  channel: Place;
  admin: Actor;
  alice: Actor;
  inv(actor: Actor, opts?: { forms?: boolean; source?: MessageRef }): Recorded;
  /** Runs `handler` with `args` as `actor`; returns the invocation with its recordings. */
  run(handler: CommandHandler, actor: Actor, args: string, opts?: { forms?: boolean }): Promise<Recorded>;
  action(handler: CommandHandler, action: string, value: string, actor: Actor): Promise<Recorded>;
  submit(
    handler: CommandHandler,
    formId: string,
    state: string,
    values: Record<string, string>,
    actor: Actor,
  ): Promise<{ inv: Recorded; result: FormResult }>;
  close(): Promise<void>;
}

export async function startCommandEnv(): Promise<CommandEnv> {
  // The bridge is not started (no sweeps): these tests call the handlers themselves.
  const h = await startCoreHarness({ storePath: ':memory:', handoffOn: 'none', start: false });
  const { ctx, surface, channel } = h;

  const inv = (actor: Actor, opts: { forms?: boolean; source?: MessageRef } = {}): Recorded => {
    const recorded = h.invocation(actor, channel, opts.source ? { source: opts.source } : {});
    // A surface without forms (a form cannot be opened from there).
    if (opts.forms === false) delete recorded.openForm;
    return Object.assign(recorded, {
      last(): OutMessage {
        const all = [...recorded.replies.map((r) => r.msg), ...recorded.updates];
        const m = all[all.length - 1];
        if (!m) throw new Error('the command said nothing');
        return m;
      },
    });
  };

  return {
    ctx,
    scope: () => scopeAt(ctx, channel),
    surface,
    channel,
    admin: h.users.admin,
    alice: h.users.alice,
    inv,
    async run(handler, actor, args, opts) {
      const i = inv(actor, opts);
      await handler.run(await scopeAt(ctx, i.place), i, args);
      return i;
    },
    async action(handler, action, value, actor) {
      const fn = handler.actions?.[action];
      if (!fn) throw new Error(`the handler has no action ${action}`);
      const source = await surface.post(channel, { text: 'the message with the button' });
      const i = inv(actor, { source });
      await fn(await scopeAt(ctx, i.place), i, value);
      return i;
    },
    async submit(handler, formId, state, values, actor) {
      const fn = handler.forms?.[formId];
      if (!fn) throw new Error(`the handler has no form ${formId}`);
      const i = inv(actor);
      const result = await fn(await scopeAt(ctx, i.place), i, state, values);
      return { inv: i, result };
    },
    close: () => h.close(),
  };
}
