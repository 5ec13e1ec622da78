/**
 * Slack's assistant pane ("Agents & AI Apps"): listeners equivalent to Bolt's `Assistant`, wired
 * into the bridge's own conversations instead of Bolt's thread context store.
 *
 * - assistant_thread_started: suggested prompts (core's: the chatbot's SuggestedMessage, else built
 *   from the listings) and a greeting posted in the new thread.
 * - assistant_thread_context_changed: the channel the user is looking at, kept per thread (store).
 * - A user's message in an assistant thread (a DM with thread_ts) is handled by the message listener
 *   like any thread; `onThreadMessage` titles the thread with its first question.
 * The "is thinking…" status comes from core through the port (AnswerStatus -> SlackPort.setStatus).
 */
import type { App, Context } from '@slack/bolt';
import type { Logger } from 'pino';
import { z } from 'zod';
import { DEFAULT_GREETING } from '../../core/assistant/intro';
import type { AssistantIntro, BridgeCore, Place } from '../../core/surface';
import type { StateStore } from '../../state/store';
import type { AssistantThreads } from './assistant-api';
import { eventEnvelopeSchema } from './payloads';
import { firstDelivery } from './redelivery';
import type { SlackPort } from './port';
import { teamOf } from './request-team';
import { slackRecords } from './records';
import { claimMoving, readMoving } from '../../state/moved-records';

const id = z.string().min(1).max(255);

const contextSchema = z
  .object({
    channel_id: id.nullish(),
    team_id: id.nullish(),
    enterprise_id: id.nullish(),
  })
  .passthrough();

/** assistant_thread_started and assistant_thread_context_changed carry the same thread object. */
export const assistantThreadEventSchema = z.object({
  type: z.enum(['assistant_thread_started', 'assistant_thread_context_changed']),
  assistant_thread: z.object({
    user_id: id,
    channel_id: id,
    thread_ts: id,
    context: contextSchema.nullish(),
  }),
});

export const assistantThreadRecordSchema = z.object({
  user: z.string(),
  startedAt: z.number(),
  /** The channel (and team) the user had open when they last opened or moved the pane. */
  context: z.object({ channel: z.string().optional(), team: z.string().optional(), enterprise: z.string().optional() }),
});
export type AssistantThreadRecord = z.infer<typeof assistantThreadRecordSchema>;

/** Assistant threads are remembered as long as conversations' "recent" pointers. */
const THREAD_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** When core cannot say (not attached yet, or it failed): what the bot can do, generic prompts. */
export const DEFAULT_INTRO: AssistantIntro = {
  greeting: DEFAULT_GREETING,
  prompts: [
    { title: 'Homes for sale', message: 'Which homes are for sale?' },
    { title: 'Homes for rent', message: 'Which homes are for rent?' },
  ],
};

export interface AssistantDeps {
  app: App;
  port: SlackPort;
  threads: AssistantThreads;
  store: StateStore;
  log: Logger;
  core: () => BridgeCore | undefined;
  team: () => string;
}

export interface AssistantHooks {
  /** A user's message in a DM thread (an assistant thread): its first one titles the thread. */
  onThreadMessage(place: Place, text: string): Promise<void>;
}

export function registerAssistant(d: AssistantDeps): AssistantHooks {
  d.app.event('assistant_thread_started', ({ body, event, context }) =>
    onThreadStarted(d, workspaceOf(d, body, context), body, event),
  );

  d.app.event('assistant_thread_context_changed', async ({ body, event, context }) => {
    try {
      const parsed = assistantThreadEventSchema.safeParse(event);
      if (!parsed.success || !(await firstDelivery(d.store, body, parsed.data.assistant_thread.channel_id))) return;
      await remember(d, workspaceOf(d, body, context), parsed.data.assistant_thread);
    } catch (err) {
      d.log.error({ err }, 'slack: assistant_thread_context_changed handling failed');
    }
  });

  return {
    async onThreadMessage(place, text) {
      if (!place.thread || text.trim() === '') return;
      try {
        const r = slackRecords.assistantTitled(d.store, place.workspace, place.channel, place.thread);
        if (!(await claimMoving(d.store, r.view, r.key, r.legacy, Date.now(), THREAD_TTL_MS))) return;
        await d.threads.setTitle(place, text);
      } catch (err) {
        d.log.warn({ err }, 'slack: assistant thread title not set');
      }
    },
  };
}

/** A new assistant thread: its context kept, the suggested prompts set, the greeting posted. */
async function onThreadStarted(d: AssistantDeps, team: string, body: unknown, event: unknown): Promise<void> {
  try {
    const parsed = assistantThreadEventSchema.safeParse(event);
    if (!parsed.success || !(await firstDelivery(d.store, body, parsed.data.assistant_thread.channel_id))) return;
    const t = parsed.data.assistant_thread;
    const place: Place = { surface: 'slack', workspace: team, channel: t.channel_id, thread: t.thread_ts };
    await remember(d, team, t);
    const { greeting, prompts } = await intro(d, place);
    // Prompts first: the pane shows them under the greeting as soon as the thread opens.
    await d.threads
      .setSuggestedPrompts(place, prompts, 'Try asking')
      .catch((err: unknown) => d.log.warn({ err }, 'slack: suggested prompts not set'));
    await d.port.post(place, { text: greeting, markdown: true });
  } catch (err) {
    d.log.error({ err }, 'slack: assistant_thread_started handling failed');
  }
}

function workspaceOf(d: AssistantDeps, body: unknown, context: Context): string {
  const env = eventEnvelopeSchema.safeParse(body);
  return (env.success ? env.data.team_id : undefined) ?? teamOf(d, context);
}

/** Keeps the thread's context (what channel the user had open); its start time survives a context change. */
async function remember(
  d: AssistantDeps,
  team: string,
  t: z.infer<typeof assistantThreadEventSchema>['assistant_thread'],
): Promise<void> {
  const r = slackRecords.assistantThread(d.store, team, t.channel_id, t.thread_ts);
  const known = assistantThreadRecordSchema.safeParse(
    await readMoving(d.store, r.view, r.key, r.legacy, THREAD_TTL_MS),
  );
  const c = t.context ?? {};
  const record: AssistantThreadRecord = {
    user: t.user_id,
    startedAt: known.success ? known.data.startedAt : Date.now(),
    context: {
      ...(c.channel_id ? { channel: c.channel_id } : {}),
      ...(c.team_id ? { team: c.team_id } : {}),
      ...(c.enterprise_id ? { enterprise: c.enterprise_id } : {}),
    },
  };
  await r.view.set(r.key, record, THREAD_TTL_MS);
}

/** The chatbot's greeting and prompts, or the default ones when core has none or fails. */
async function intro(d: AssistantDeps, place: Place): Promise<AssistantIntro> {
  const core = d.core();
  if (!core?.assistantIntro) return DEFAULT_INTRO;
  try {
    return await core.assistantIntro(place);
  } catch (err) {
    d.log.warn({ err }, 'slack: assistant intro failed, using the default');
    return DEFAULT_INTRO;
  }
}

/** The context kept for an assistant thread (what channel the user had open), if any. */
export async function assistantThreadContext(
  store: StateStore,
  place: Place,
): Promise<AssistantThreadRecord | undefined> {
  if (!place.thread) return undefined;
  const r = slackRecords.assistantThread(store, place.workspace, place.channel, place.thread);
  const parsed = assistantThreadRecordSchema.safeParse(await readMoving(store, r.view, r.key, r.legacy, THREAD_TTL_MS));
  return parsed.success ? parsed.data : undefined;
}
