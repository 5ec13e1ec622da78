import { FAKE_CREDENTIALS, startFakeChatbotService } from '../support/fake-chatbot-service';
import { runClientContract } from './contract';

runClientContract('in-memory fake service', async () => {
  const server = await startFakeChatbotService();
  return { baseUrl: server.baseUrl, credentials: FAKE_CREDENTIALS, chatbotId: 'demo', close: () => server.close() };
});
