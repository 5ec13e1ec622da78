/**
 * The inbound Slack payloads the surface handles, as zod schemas: the single source of their types.
 * Everything Slack sends is parsed here before any listener sees it, so a correctly signed but
 * malformed request is refused with 400 instead of reaching Bolt (which can throw on odd shapes).
 */
import { z } from 'zod';

const id = z.string().min(1).max(255);

export const slashCommandSchema = z.object({
  command: z.string().min(2).max(100).startsWith('/'),
  text: z.string().max(10_000).default(''),
  user_id: id,
  user_name: z.string().max(255).optional(),
  channel_id: id,
  channel_name: z.string().max(255).optional(),
  team_id: id.optional(),
  trigger_id: z.string().max(500).optional(),
  response_url: z.string().max(2000).optional(),
});

export const slackFileSchema = z.object({
  id,
  name: z.string().max(1000).nullish(),
  title: z.string().max(1000).nullish(),
  mimetype: z.string().max(255).nullish(),
  size: z.number().nonnegative().nullish(),
  url_private: z.string().max(4000).nullish(),
  url_private_download: z.string().max(4000).nullish(),
});
export type SlackFile = z.infer<typeof slackFileSchema>;

/** `message` and `app_mention` events: the only events the bridge acts on. */
export const messageEventSchema = z.object({
  type: z.enum(['message', 'app_mention']),
  subtype: z.string().max(100).optional(),
  user: id.optional(),
  bot_id: z.string().max(255).optional(),
  text: z.string().max(100_000).default(''),
  ts: id,
  thread_ts: id.optional(),
  channel: id,
  channel_type: z.string().max(50).optional(),
  team: id.optional(),
  files: z.array(slackFileSchema).max(100).optional(),
});
export type MessageEvent = z.infer<typeof messageEventSchema>;

export const eventEnvelopeSchema = z.object({
  type: z.literal('event_callback'),
  event_id: id,
  team_id: id.optional(),
  event: z.object({ type: z.string().min(1).max(100) }).passthrough(),
});

const userRefSchema = z.object({
  id,
  username: z.string().max(255).optional(),
  name: z.string().max(255).optional(),
  team_id: id.optional(),
});
const teamRefSchema = z.object({ id }).nullish();

export const blockActionsSchema = z.object({
  type: z.literal('block_actions'),
  user: userRefSchema,
  team: teamRefSchema,
  channel: z.object({ id }).nullish(),
  container: z
    .object({
      message_ts: id.optional(),
      channel_id: id.optional(),
      thread_ts: id.optional(),
    })
    .passthrough()
    .nullish(),
  message: z.object({ ts: id, thread_ts: id.optional() }).passthrough().nullish(),
  trigger_id: z.string().max(500).optional(),
  response_url: z.string().max(2000).optional(),
  actions: z
    .array(
      z
        .object({
          action_id: z.string().min(1).max(255),
          value: z.string().max(2000).optional(),
          block_id: z.string().max(255).optional(),
        })
        .passthrough(),
    )
    .min(1)
    .max(25),
});

/** One input's state in a submitted view, whichever element kind produced it. */
export const viewInputStateSchema = z
  .object({
    type: z.string().max(100).optional(),
    value: z.string().max(10_000).nullish(),
    selected_option: z
      .object({ value: z.string().max(2000) })
      .passthrough()
      .nullish(),
    selected_options: z
      .array(z.object({ value: z.string().max(2000) }).passthrough())
      .max(100)
      .nullish(),
  })
  .passthrough();

export const viewSubmissionSchema = z.object({
  type: z.literal('view_submission'),
  user: userRefSchema,
  team: teamRefSchema,
  trigger_id: z.string().max(500).optional(),
  view: z
    .object({
      id: z.string().max(255).optional(),
      callback_id: z.string().max(255),
      private_metadata: z.string().max(3000).default(''),
      state: z.object({
        values: z.record(z.string().max(255), z.record(z.string().max(255), viewInputStateSchema)),
      }),
    })
    .passthrough(),
});

export const urlVerificationSchema = z.object({
  type: z.literal('url_verification'),
  challenge: z.string().max(1000),
});

/** What we put in a modal's private_metadata and read back on submit. */
export const formMetadataSchema = z.object({
  formId: z.string().min(1),
  state: z.string(),
  channel: z.string().optional(),
  thread: z.string().optional(),
  team: z.string().optional(),
});
export type FormMetadata = z.infer<typeof formMetadataSchema>;

/** What a button's value carries: core's action id and its opaque value. */
export const buttonValueSchema = z.object({ a: z.string().min(1), v: z.string() });
