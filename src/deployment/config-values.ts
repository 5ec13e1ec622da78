/** The value shapes of environment variables (zod), shared by the one configuration schema. */
import { z } from 'zod';
import { isHostName } from '../core/text/links';

const blankIsUnset = (v: unknown) =>
  typeof v === 'string' && v.trim() === '' ? undefined : typeof v === 'string' ? v.trim() : v;
export const opt = <T extends z.ZodTypeAny>(schema: T) => z.preprocess(blankIsUnset, schema.optional());

export const httpUrl = z
  .string()
  .refine((v) => /^https?:\/\/[^\s]+$/i.test(v) && URL.canParse(v), {
    message: 'must be an http(s) URL like http://127.0.0.1:8080',
  })
  .transform((v) => v.replace(/\/+$/, ''));
export const text = z.string();
export const list = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== ''),
);
// LINK_HOSTS: host names only, so a typo (a scheme, a path) is named rather than never matching.
export const hostList = list.superRefine((hosts, ctx) => {
  const bad = hosts.find((h) => !isHostName(h));
  if (bad !== undefined)
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: `"${bad.slice(0, 80)}" is not a host name: list host names separated by commas, like homes.example.com,docs.example.com (no https://, port or path)`,
    });
});
export const snowflake = z.string().regex(/^\d+$/, 'must be a numeric Discord id');
export const seconds = z
  .string()
  .refine((v) => /^\d+(\.\d+)?$/.test(v) && Number(v) > 0, { message: 'must be a number of seconds greater than 0' })
  .transform((v) => Math.round(Number(v) * 1000));
export const bool = z
  .string()
  .refine((v) => /^(true|false|1|0|yes|no|on|off)$/i.test(v), { message: 'must be true or false' })
  .transform((v) => /^(true|1|yes|on)$/i.test(v));
