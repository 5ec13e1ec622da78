/**
 * Slack's Agent messaging experience (manifest `features.agent_view`): the conversation lives in the
 * app's Messages tab instead of the assistant pane.
 *
 * - app_home_opened with tab "messages" replaces assistant_thread_started: the first open of the
 *   day greets the user (core decides, once per user per day) and sets the suggested prompts. In
 *   this experience setSuggestedPrompts takes no thread_ts (Slack drops a call that has one), so the
 *   prompts go with the latest message of the DM: the greeting, posted first.
 * - app_context_changed: the channel the user is looking at, kept per user (store), like the
 *   assistant pane's context per thread, and prompts about it on the DM (its open ticket, the
 *   listings answers there named; generic ones for a channel of another workspace or none).
 * - The user's DM messages (no assistant_app_thread root) are conversations through the message
 *   listener, which titles the thread with its first question.
 */
import type { Context } from '@slack/bolt';
import { z } from 'zod';
import type { Place } from '../../core/surface';
import type { StateStore } from '../../state/store';
import type { AssistantDeps } from './assistant';
import { eventEnvelopeSchema } from './payloads';
import { firstDelivery } from './redelivery';
import { teamOf } from './request-team';
import { slackRecords } from './records';
import { readMoving, writeMoving } from '../../state/moved-records';

const id = z.string().min(1).max(255);

const messagesTabOpenedSchema = z.object({
  type: z.literal('app_home_opened'),
  user: id,
  channel: id,
  tab: z.literal('messages'),
});

const contextChangedSchema = z.object({
  type: z.literal('app_context_changed'),
  user: id.optional(),
  channel: id.optional(),
  context: z
    .object({
      entities: z
        .array(z.object({ type: z.string(), value: z.unknown(), team_id: id.optional() }).passthrough())
        .optional(),
    })
    .passthrough()
    .optional(),
});

const agentContextSchema = z.object({
  /** The channel the user is looking at (Slack orders the context's entities by relevance). */
  channel: z.string().optional(),
  team: z.string().optional(),
  at: z.number(),
});
type AgentContext = z.infer<typeof agentContextSchema>;

/** As long as an assistant thread's record. */
const CONTEXT_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** The same dependencies as the assistant pane's listeners (assistant.ts). */
export function registerAgent(d: AssistantDeps): void {
  const workspaceOf = (body: unknown, context: Context): string => {
    const env = eventEnvelopeSchema.safeParse(body);
    return (env.success ? env.data.team_id : undefined) ?? teamOf(d, context);
  };

  d.app.event('app_home_opened', async ({ body, event, context }) => {
    try {
      // The Home tab is home.ts's; only the Messages tab is the agent's.
      const opened = messagesTabOpenedSchema.safeParse(event);
      if (!opened.success || !(await firstDelivery(d.store, body, opened.data.channel))) return;
      const core = d.core();
      if (!core?.dailyWelcome) return;
      const place: Place = { surface: 'slack', workspace: workspaceOf(body, context), channel: opened.data.channel };
      const welcome = await core.dailyWelcome(place, opened.data.user);
      if (!welcome) return;
      await d.port.post(place, { text: welcome.greeting, markdown: true });
      await d.threads
        .setSuggestedPrompts(place, welcome.prompts, 'Try asking')
        .catch((err: unknown) => d.log.warn({ err }, 'slack: suggested prompts not set'));
    } catch (err) {
      d.log.error({ err }, 'slack: Messages tab greeting failed');
    }
  });

  d.app.event('app_context_changed', async ({ body, event, context }) => {
    try {
      const parsed = contextChangedSchema.safeParse(event);
      const who = parsed.success ? parsed.data.user : undefined;
      if (!parsed.success || !who) return;
      const seen = (parsed.data.context?.entities ?? []).find(
        (e) => e.type === 'slack#/types/channel_id' && typeof e.value === 'string',
      );
      const record: AgentContext = {
        ...(seen ? { channel: seen.value as string } : {}),
        ...(seen?.team_id ? { team: seen.team_id } : {}),
        at: Date.now(),
      };
      const team = workspaceOf(body, context);
      const r = slackRecords.agentContext(d.store, team, who);
      await writeMoving(d.store, r.view, r.key, r.legacy, record, CONTEXT_TTL_MS);
      // A channel of another workspace (Slack Connect) is not this tenant's to look into.
      const looking = seen && (!seen.team_id || seen.team_id === team) ? (seen.value as string) : undefined;
      if (parsed.data.channel)
        await contextPrompts(d, { surface: 'slack', workspace: team, channel: parsed.data.channel }, looking);
    } catch (err) {
      d.log.error({ err }, 'slack: app_context_changed handling failed');
    }
  });
}

/**
 * Suggested prompts about the channel the user looks at, on the app's DM (`dm`: no thread, as this
 * experience takes them), through the assistant methods' one outbound path (escaped, on the budget).
 */
async function contextPrompts(d: AssistantDeps, dm: Place, looking: string | undefined): Promise<void> {
  const core = d.core();
  if (!core?.channelPrompts) return;
  const prompts = await core.channelPrompts(dm, looking);
  await d.threads
    .setSuggestedPrompts(dm, prompts, looking ? 'About this channel' : 'Try asking')
    .catch((err: unknown) => d.log.warn({ err }, 'slack: suggested prompts not set'));
}

/** What the user was last looking at while the agent was open (undefined: never told). */
export async function agentContext(store: StateStore, team: string, user: string): Promise<AgentContext | undefined> {
  const r = slackRecords.agentContext(store, team, user);
  const parsed = agentContextSchema.safeParse(await readMoving(store, r.view, r.key, r.legacy, CONTEXT_TTL_MS));
  return parsed.success ? parsed.data : undefined;
}
