/**
 * Files attached to a conversation message: which the chatbot accepts (sections 4.2 and 8 of the
 * interface) and their upload. Anything else gets one message that says what is accepted.
 */
import { ASK_FILE_RULES, mediaKindOf, type MediaKind } from '../service/schemas/chat';
import type { ChatbotClient } from '../service/client';
import type { Attachment, SurfacePort } from './surface';

export const ACCEPTED_FILES =
  'I can read images (PNG, JPEG, WEBP or non-animated GIF, up to 20 MB each, several at once), ' +
  'one WAV recording, or one video (MP4, MKV, AVI, FLV or MPEG, up to 100 MB) per message.';

/** A surface refused to download a file over its byte cap: the user is told, nothing else fails. */
export class AttachmentTooLargeError extends Error {
  constructor(
    readonly fileName: string,
    readonly maxBytes: number,
  ) {
    super(`${fileName} is too big: files over ${mb(maxBytes)} can't be read. ${ACCEPTED_FILES}`);
    this.name = 'AttachmentTooLargeError';
  }
}

export type AttachmentPlan = { ok: true; kind: MediaKind; files: Attachment[] } | { ok: false; message: string };

function mb(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}

/** Kind by extension, else by MIME type (some platforms name pasted images without an extension). */
function kindOf(att: Attachment): MediaKind | undefined {
  const byName = mediaKindOf(att.name);
  if (byName) return byName;
  const mime = att.mime?.toLowerCase() ?? '';
  const sub = mime.split('/')[1]?.split(';')[0] ?? '';
  if (mime.startsWith('image/')) return mediaKindOf(`x.${sub}`) === 'Image' ? 'Image' : undefined;
  if (mime === 'audio/wav' || mime === 'audio/x-wav' || mime === 'audio/wave') return 'Audio';
  if (mime.startsWith('video/')) {
    const ext =
      sub === 'quicktime'
        ? ''
        : sub === 'x-matroska'
          ? 'mkv'
          : sub === 'x-msvideo'
            ? 'avi'
            : sub === 'x-flv'
              ? 'flv'
              : sub;
    return mediaKindOf(`x.${ext}`) === 'Video' ? 'Video' : undefined;
  }
  return undefined;
}

/** Decides from names, types and announced sizes, before anything is downloaded. */
export function planAttachments(attachments: Attachment[]): AttachmentPlan {
  const kinds = attachments.map((att) => ({ att, kind: kindOf(att) }));
  const unknown = kinds.filter((k) => k.kind === undefined).map((k) => k.att.name);
  if (unknown.length > 0) {
    return { ok: false, message: `I can't read ${unknown.join(', ')}. ${ACCEPTED_FILES}` };
  }
  const distinct = new Set(kinds.map((k) => k.kind));
  if (distinct.size > 1) {
    return {
      ok: false,
      message: `Please send one kind of file per message (images, a recording, or a video). ${ACCEPTED_FILES}`,
    };
  }
  const kind = kinds[0]?.kind;
  if (!kind) return { ok: false, message: ACCEPTED_FILES };
  const rule = ASK_FILE_RULES[kind];
  if (attachments.length > rule.maxFiles) {
    return {
      ok: false,
      message: `Only one ${kind === 'Audio' ? 'WAV recording' : 'video'} per message, please. ${ACCEPTED_FILES}`,
    };
  }
  const tooBig = attachments.filter((a) => a.size !== undefined && a.size > rule.maxBytes);
  if (tooBig.length > 0) {
    return {
      ok: false,
      message: `${tooBig.map((a) => `${a.name} (${mb(a.size ?? 0)})`).join(', ')} is over the ${mb(rule.maxBytes)} limit. ${ACCEPTED_FILES}`,
    };
  }
  return { ok: true, kind, files: attachments };
}

/** Downloads each file from the surface and uploads it to the service; sizes are checked again on the bytes. */
export async function uploadAttachments(
  client: Pick<ChatbotClient, 'upload'>,
  surface: SurfacePort,
  plan: { kind: MediaKind; files: Attachment[] },
): Promise<{ ok: true; fileIds: number[] } | { ok: false; message: string }> {
  const rule = ASK_FILE_RULES[plan.kind];
  const fileIds: number[] = [];
  for (const att of plan.files) {
    let bytes: Buffer;
    try {
      bytes = await surface.fetchAttachment(att);
    } catch (err) {
      if (err instanceof AttachmentTooLargeError) return { ok: false, message: err.message };
      throw err;
    }
    if (bytes.length > rule.maxBytes) {
      return {
        ok: false,
        message: `${att.name} (${mb(bytes.length)}) is over the ${mb(rule.maxBytes)} limit. ${ACCEPTED_FILES}`,
      };
    }
    fileIds.push(await client.upload(att.name, bytes));
  }
  return { ok: true, fileIds };
}
