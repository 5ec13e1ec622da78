/** The same operation contract as client-contract.test.ts, against the local chatbot service. */
import { startLocalService } from '../../src/local-service';
import { runClientContract } from './contract';

runClientContract('local chatbot service (sse)', async () => {
  const service = await startLocalService({ port: 0, dbPath: ':memory:' });
  return {
    baseUrl: service.url,
    credentials: service.credentials,
    chatbotId: service.chatbotId,
    close: () => service.close(),
  };
});

runClientContract('local chatbot service (ndjson, like the hosted service)', async () => {
  const service = await startLocalService({ port: 0, dbPath: ':memory:', streamFraming: 'ndjson' });
  return {
    baseUrl: service.url,
    credentials: service.credentials,
    chatbotId: service.chatbotId,
    close: () => service.close(),
  };
});
