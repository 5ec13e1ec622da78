/** Chat: GetSession, ClientAsk (plain and streamed), ModelList, GetPreUploadUrl. */
import { z } from 'zod';
import { bool, int, nonEmptyStr, oneOf, str } from './fields';

// ---- GetSession -------------------------------------------------------------------------------

export const getSessionRequestSchema = z.object({ serialNumber: nonEmptyStr('serialNumber') }).strict();
export const getSessionDataSchema = z.object({ SessionID: int('SessionID') });

// ---- ClientAsk ----------------------------------------------------------------------------------

export const CHAT_ASK_TYPES = ['Text', 'Audio', 'Image', 'Video'] as const;
export type ChatAskType = (typeof CHAT_ASK_TYPES)[number];

/** Section 8 and 4.2: what each media mode accepts. */
export const ASK_FILE_RULES = {
  Image: { maxFiles: Infinity, maxBytes: 20 * 1024 * 1024, extensions: ['png', 'jpeg', 'jpg', 'webp', 'gif'] },
  Video: { maxFiles: 1, maxBytes: 100 * 1024 * 1024, extensions: ['mp4', 'mkv', 'avi', 'flv', 'mpeg'] },
  Audio: { maxFiles: 1, maxBytes: Infinity, extensions: ['wav'] },
} as const;

export type MediaKind = keyof typeof ASK_FILE_RULES;

/** The media mode a file name belongs to, by extension (undefined: not a chat media file). */
export function mediaKindOf(fileName: string): MediaKind | undefined {
  const ext = /\.([^./\\]+)$/.exec(fileName)?.[1]?.toLowerCase();
  if (!ext) return undefined;
  return (Object.keys(ASK_FILE_RULES) as MediaKind[]).find((k) =>
    (ASK_FILE_RULES[k].extensions as readonly string[]).includes(ext),
  );
}

/** FileStoreId comes back as a string from upload and goes to ClientAsk as an integer: accept both. */
export const fileIdSchema = z.union(
  [
    z.number().int().positive(),
    z
      .string()
      .regex(/^\d+$/)
      .transform((s) => Number(s)),
  ],
  { errorMap: () => ({ message: 'fileIds must hold file ids (positive whole numbers) from an upload' }) },
);

export const clientAskRequestSchema = z
  .object({
    sessionID: int('sessionID'),
    content: str('content'),
    chatAskType: oneOf('chatAskType', CHAT_ASK_TYPES).nullish(),
    stream: bool('stream').optional(),
    fileIds: z.array(fileIdSchema, { invalid_type_error: 'fileIds must be an array of file ids' }).optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    const mode: ChatAskType = body.chatAskType ?? 'Text';
    const files = body.fileIds ?? [];
    if (mode === 'Text') {
      if (body.content.trim() === '') {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: ['content'],
          message: 'content must not be empty when chatAskType is Text',
        });
      }
      if (files.length > 0) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: ['fileIds'],
          message: 'fileIds are allowed only when chatAskType is Image, Video or Audio',
        });
      }
      return;
    }
    const rule = ASK_FILE_RULES[mode];
    if (files.length === 0) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['fileIds'],
        message: `fileIds must hold at least one file when chatAskType is ${mode}`,
      });
    } else if (files.length > rule.maxFiles) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['fileIds'],
        message: `fileIds must hold exactly one file when chatAskType is ${mode}`,
      });
    }
  });

// ---- ModelList ----------------------------------------------------------------------------------

export const modelListDataSchema = z.array(
  z.object({
    Key: z.union([z.string(), z.number()]).transform(String),
    Value: z.string(),
    Status: z.boolean(),
  }),
);
export type ModelListWire = z.input<typeof modelListDataSchema>;

// ---- Upload ---------------------------------------------------------------------------------------

export const preUploadRequestSchema = z
  .object({
    fileName: nonEmptyStr('fileName').refine((n) => !/[\\/]/.test(n), {
      message: 'fileName must be a bare file name (no / or \\)',
    }),
  })
  .strict();

export const preUploadDataSchema = z.object({
  FileStoreId: z.union([z.string().regex(/^\d+$/), z.number().int()]),
  PreUploadUrl: z.string().url(),
});

/** Size rule of section 8 checked before uploading (the file's mode is known by its extension). */
export function uploadSizeProblem(fileName: string, size: number): string | undefined {
  const kind = mediaKindOf(fileName);
  if (!kind) return undefined;
  const max = ASK_FILE_RULES[kind].maxBytes;
  if (size > max)
    return `${fileName} is ${size} bytes; ${kind.toLowerCase()} files may be up to ${max / (1024 * 1024)} MB`;
  return undefined;
}
