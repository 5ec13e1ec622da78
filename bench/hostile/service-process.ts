/**
 * The local chatbot service in a process of its own for the hostile bench: in production the service
 * is remote, so what it spends answering 39,000-character words must not count as the bridge's
 * event-loop delay. Prints one JSON line with its URL and keys once it listens.
 */
import { buildLocalService } from '../../src/local-service';

async function main(): Promise<void> {
  const svc = buildLocalService({
    dbPath: process.env.SERVICE_DB ?? ':memory:',
    // Answers stream for about a second, as a hosted model's do, so answer times are comparable.
    fragmentDelayMs: Number(process.env.FRAGMENT_DELAY_MS ?? 20),
  });
  await svc.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = svc.app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  process.stdout.write(
    `${JSON.stringify({ url: `http://127.0.0.1:${port}`, chatbotId: svc.chatbotId, ...svc.credentials })}\n`,
  );
  process.on('SIGTERM', () => {
    void svc.app.close().then(() => process.exit(0));
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`hostile bench service failed: ${String(err)}\n`);
  process.exit(1);
});
