/**
 * A CoreContext for command tests: the real local chatbot service on 127.0.0.1, a ChatbotClient to
 * it, an in-memory SQLite store, a TestSurface, and invocations that record what the command said.
 */
import pino from 'pino';
import type { CommandHandler, CoreContext } from '../../../src/core/context';
import type { Actor, FormResult, FormSpec, Invocation, MessageRef, OutMessage, Place } from '../../../src/core/surface';
import { startLocalService } from '../../../src/local-service';
import { ChatbotClient } from '../../../src/service/client';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { TEST_SURFACE, TestSurface } from '../../support/test-surface';

export interface Recorded extends Invocation {
  replies: Array<{ msg: OutMessage; ephemeral: boolean }>;
  updates: OutMessage[];
  forms: FormSpec[];
  texts(): string[];
  last(): OutMessage;
}

export interface CommandEnv {
  ctx: CoreContext;
  surface: TestSurface;
  channel: Place;
  admin: Actor;
  alice: Actor;
  inv(actor: Actor, opts?: { forms?: boolean; source?: MessageRef }): Recorded;
  /** Runs `handler` with `args` as `actor`; returns the invocation with its recordings. */
  run(handler: CommandHandler, actor: Actor, args: string, opts?: { forms?: boolean }): Promise<Recorded>;
  action(handler: CommandHandler, action: string, value: string, actor: Actor): Promise<Recorded>;
  submit(handler: CommandHandler, formId: string, state: string, values: Record<string, string>, actor: Actor): Promise<{ inv: Recorded; result: FormResult }>;
  close(): Promise<void>;
}

export async function startCommandEnv(): Promise<CommandEnv> {
  const service = await startLocalService({ port: 0, dbPath: ':memory:' });
  const client = new ChatbotClient({
    baseUrl: service.url,
    secretKey: service.credentials.secretKey,
    sessionKey: service.credentials.sessionKey,
    apiKey: service.credentials.apiKey,
    retries: { count: 1, baseDelayMs: 10 },
  });
  const store = new SqliteStore(':memory:');
  const surface = new TestSurface();
  const ctx: CoreContext = {
    client,
    store,
    config: {
      chatbotId: service.chatbotId,
      answerIdleTimeoutMs: 5000,
      handoff: {},
      handoffClaimTimeoutMs: 60_000,
      handoffOnNoAnswer: false,
      instanceId: 'commands-test',
    },
    surfaces: { get: (n) => (n === TEST_SURFACE ? surface : undefined), all: () => [surface] },
    log: pino({ level: 'silent' }),
    now: () => Date.now(),
  };
  const channel: Place = { surface: TEST_SURFACE, workspace: 'W1', channel: 'C1' };
  const admin: Actor = { id: 'U-admin', name: 'Ada Admin', isAdmin: true };
  const alice: Actor = { id: 'U-alice', name: 'Alice', isAdmin: false };

  const inv = (actor: Actor, opts: { forms?: boolean; source?: MessageRef } = {}): Recorded => {
    const replies: Recorded['replies'] = [];
    const updates: OutMessage[] = [];
    const forms: FormSpec[] = [];
    const rec: Recorded = {
      surface,
      place: channel,
      actor,
      replies,
      updates,
      forms,
      async reply(msg, o) {
        const ephemeral = o?.ephemeral ?? false;
        replies.push({ msg, ephemeral });
        if (ephemeral) {
          await surface.notify(channel, actor, msg);
          return undefined;
        }
        return surface.post(channel, msg);
      },
      async update(msg) {
        updates.push(msg);
        if (opts.source) await surface.edit(opts.source, msg);
      },
      texts: () => [...replies.map((r) => r.msg.text), ...updates.map((u) => u.text)],
      last: () => {
        const all = [...replies.map((r) => r.msg), ...updates];
        const m = all[all.length - 1];
        if (!m) throw new Error('the command said nothing');
        return m;
      },
    };
    if (opts.forms !== false) rec.openForm = async (form) => void forms.push(form);
    if (opts.source) rec.source = opts.source;
    return rec;
  };

  return {
    ctx,
    surface,
    channel,
    admin,
    alice,
    inv,
    async run(handler, actor, args, opts) {
      const i = inv(actor, opts);
      await handler.run(ctx, i, args);
      return i;
    },
    async action(handler, action, value, actor) {
      const fn = handler.actions?.[action];
      if (!fn) throw new Error(`${handler.name} has no action ${action}`);
      const source = await surface.post(channel, { text: 'the message with the button' });
      const i = inv(actor, { source });
      await fn(ctx, i, value);
      return i;
    },
    async submit(handler, formId, state, values, actor) {
      const fn = handler.forms?.[formId];
      if (!fn) throw new Error(`${handler.name} has no form ${formId}`);
      const i = inv(actor);
      const result = await fn(ctx, i, state, values);
      return { inv: i, result };
    },
    async close() {
      await store.close();
      await service.close();
    },
  };
}
