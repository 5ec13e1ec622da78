import { z } from 'zod';
import type { LocalServiceOptions } from './index';

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** The environment of `npm run service`; every variable optional with the defaults of the issue. */
export const serviceEnvSchema = z.object({
  PORT: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? '8787' : v.trim()))
    .pipe(
      z.coerce
        .number({ invalid_type_error: 'must be a port number from 0 to 65535' })
        .int('must be a port number from 0 to 65535')
        .min(0, 'must be a port number from 0 to 65535')
        .max(65535, 'must be a port number from 0 to 65535'),
    ),
  HOST: optionalText.transform((v) => v ?? '127.0.0.1'),
  SERVICE_DB: optionalText.transform((v) => v ?? './data/service.db'),
  CHATBOT_SECRET_KEY: optionalText,
  CHATBOT_SESSION_KEY: optionalText,
  CHATBOT_API_KEY: optionalText,
  CHATBOT_ID: optionalText
    .transform((v) => v ?? 'demo')
    .pipe(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1-64 letters, digits, _ . or -')),
  LLM_BASE_URL: optionalText.pipe(z.string().url('must be an http(s) URL like https://api.openai.com/v1').optional()),
  LLM_API_KEY: optionalText,
  LLM_MODEL: optionalText,
  STREAM_FRAMING: optionalText
    .transform((v) => v?.toLowerCase() ?? 'sse')
    .pipe(z.enum(['sse', 'ndjson'], { errorMap: () => ({ message: 'must be sse or ndjson' }) })),
});

export type ServiceEnv = z.output<typeof serviceEnvSchema>;

export type EnvResult = { ok: true; env: ServiceEnv } | { ok: false; message: string };

/** One message naming every bad variable and what it expects. */
export function parseServiceEnv(source: NodeJS.ProcessEnv): EnvResult {
  const r = serviceEnvSchema.safeParse(source);
  if (r.success) return { ok: true, env: r.data };
  const lines = r.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  return { ok: false, message: `Invalid environment for the chatbot service:\n${lines.join('\n')}` };
}

export function optionsFromEnv(env: ServiceEnv): LocalServiceOptions {
  return {
    port: env.PORT,
    host: env.HOST,
    dbPath: env.SERVICE_DB,
    secretKey: env.CHATBOT_SECRET_KEY,
    sessionKey: env.CHATBOT_SESSION_KEY,
    apiKey: env.CHATBOT_API_KEY,
    chatbotId: env.CHATBOT_ID,
    llm: env.LLM_BASE_URL ? { baseUrl: env.LLM_BASE_URL, apiKey: env.LLM_API_KEY, model: env.LLM_MODEL } : undefined,
    streamFraming: env.STREAM_FRAMING,
  };
}
