/**
 * `/ask photos:True`: the question with photos. Discord's slash command carries no files, so the
 * command opens a modal: the question (pre-filled with what was typed) and a File Upload (type 19)
 * of up to 10 images, each in its Label. Its submit is core's `/ask` with the uploads as the
 * invocation's attachments: queued with the question and sent to the chatbot as an image question,
 * the way a Slack file or a Discord message's attachment is (core/attachments.ts checks the kinds and
 * sizes, the port downloads them from Discord's signed URLs).
 */
import {
  ComponentType,
  FileUploadBuilder,
  LabelBuilder,
  ModalBuilder,
  TextInputBuilder,
  TextInputStyle,
} from 'discord.js';
import { z } from 'zod';
import type { Attachment } from '../../core/surface';
import { cut } from './forms';
import type { ModalBody } from './modal';

/** The modal's custom id: it holds no session (a modal is submitted only by the person it was shown to). */
export const ASK_PHOTOS_MODAL = 'ap';
const QUESTION = 'question';
const PHOTOS = 'photos';
/** Discord takes at most 10 files in one File Upload. */
const MAX_PHOTOS = 10;
/** A question as long as a Discord message. */
const MAX_QUESTION = 2000;

export function askPhotosModal(question: string): ModalBody {
  const text = new TextInputBuilder()
    .setCustomId(QUESTION)
    .setStyle(TextInputStyle.Paragraph)
    .setRequired(true)
    .setMaxLength(MAX_QUESTION)
    .setPlaceholder('What would you like to know about these photos?');
  if (question.trim() !== '') text.setValue(question.slice(0, MAX_QUESTION));
  const upload = new FileUploadBuilder()
    .setCustomId(PHOTOS)
    .setMinValues(1)
    .setMaxValues(MAX_PHOTOS)
    .setRequired(true)
    .setFileTypes('image');
  return new ModalBuilder()
    .setCustomId(ASK_PHOTOS_MODAL)
    .setTitle('Ask about photos')
    .addLabelComponents(
      new LabelBuilder().setLabel('Your question').setTextInputComponent(text),
      new LabelBuilder()
        .setLabel('Photos')
        .setDescription(cut('PNG, JPEG, WEBP or GIF, up to 20 MB each, at most 10', 100))
        .setFileUploadComponent(upload),
    )
    .toJSON();
}

const snowflake = z.string().regex(/^\d{1,20}$/);
const uploaded = z.object({
  id: snowflake,
  name: z.string().min(1),
  url: z.string().url(),
  contentType: z.string().nullish(),
  size: z.number().int().nonnegative(),
});
const questionInput = z.object({
  type: z.literal(ComponentType.TextInput),
  customId: z.literal(QUESTION),
  value: z.string(),
});
const photosInput = z.object({
  type: z.literal(ComponentType.FileUpload),
  customId: z.literal(PHOTOS),
  values: z.array(snowflake).max(MAX_PHOTOS),
  attachments: z.instanceof(Map).optional(),
});
const labelled = z.object({
  type: z.literal(ComponentType.Label),
  component: z.object({ customId: z.string() }).passthrough(),
});

/** The submit as discord.js reads it: the question and the photos (Discord resolves each upload). */
export function submittedAsk(
  components: unknown,
): { ok: true; question: string; photos: Attachment[] } | { ok: false; why: string } {
  const top = z.array(labelled).length(2).safeParse(components);
  if (!top.success) return { ok: false, why: 'not the ask form’s two labels' };
  const inner = top.data.map((l) => l.component);
  const question = questionInput.safeParse(inner.find((c) => c.customId === QUESTION));
  const photos = photosInput.safeParse(inner.find((c) => c.customId === PHOTOS));
  if (!question.success || !photos.success)
    return { ok: false, why: 'the question or the photos are of another shape' };
  const files: Attachment[] = [];
  for (const id of photos.data.values) {
    const file = uploaded.safeParse(photos.data.attachments?.get(id));
    if (!file.success) return { ok: false, why: `upload ${id} was not resolved` };
    const { name, url, contentType, size } = file.data;
    files.push({ id, name, url, size, ...(contentType ? { mime: contentType } : {}) });
  }
  return { ok: true, question: question.data.value.slice(0, MAX_QUESTION), photos: files };
}
