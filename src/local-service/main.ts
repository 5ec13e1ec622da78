// `npm run service`: the local chatbot service alone, configured from the environment.
// No dotenv here: the bridge's .env (its own PORT) must not reconfigure the service.
import { buildLocalService } from './index';
import { optionsFromEnv, parseServiceEnv } from './env';

async function main(): Promise<void> {
  const parsed = parseServiceEnv(process.env);
  if (!parsed.ok) {
    console.error(parsed.message);
    process.exit(1);
  }
  const env = parsed.env;
  const svc = buildLocalService(optionsFromEnv(env));
  await svc.app.listen({ port: env.PORT, host: env.HOST });
  const addr = svc.app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : env.PORT;

  // Keys are printed only when they are created, so an operator can copy them then; keys kept from an
  // earlier start or given in the environment never are (a log or a terminal scrollback keeps them).
  const names = {
    secretKey: 'CHATBOT_SECRET_KEY',
    sessionKey: 'CHATBOT_SESSION_KEY',
    apiKey: 'CHATBOT_API_KEY',
  } as const;
  for (const k of svc.generated) console.log(`Generated ${names[k]}=${svc.credentials[k]} (kept in ${env.SERVICE_DB})`);
  const given = { secretKey: env.CHATBOT_SECRET_KEY, sessionKey: env.CHATBOT_SESSION_KEY, apiKey: env.CHATBOT_API_KEY };
  const kept = (Object.keys(names) as (keyof typeof names)[]).filter((k) => !given[k] && !svc.generated.includes(k));
  if (kept.length > 0)
    console.log(
      `${kept.map((k) => names[k]).join(', ')}: the keys generated on an earlier start, kept in ${env.SERVICE_DB} (not shown again)`,
    );
  console.log(
    `Chatbot ${svc.chatbotId}; answers by ${env.LLM_BASE_URL ? 'the language model' : 'the built-in answerer'}; stream framing ${env.STREAM_FRAMING}`,
  );
  const host = env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST;
  console.log(`Chatbot service listening on http://${host}:${port}`);

  let closing = false;
  const stop = (signal: string): void => {
    if (closing) return;
    closing = true;
    console.log(`${signal}: closing the chatbot service`);
    svc.app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error('close failed:', (err as Error).message);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(`The chatbot service could not start: ${(err as Error).message}`);
  process.exit(1);
});
