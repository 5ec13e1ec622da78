/**
 * Credentials checked live before they are saved: each key is used once the way the bridge will use
 * it, and a refusal is told against the form field it concerns, naming the call that failed. The
 * service's refusal is shown in its own words, never the keys (scrubbed out should a service echo
 * one back); anything else (the service failing, a network error) as user-messages.ts tells it.
 */
import type { ChatbotClient } from '../../service/client';
import { ServiceError } from '../../service/errors';
import { knownLine } from '../user-messages';
import type { ChatbotCredentials } from './connections';

/** How a failure that is no refusal is told (user-messages.ts's line, or a ref with the detail logged). */
export type TellFailure = (err: unknown) => string;

/** Form field -> why it was refused; empty when every check passed. */
export type CheckErrors = Partial<Record<keyof ChatbotCredentials, string>>;

function refused(err: unknown, secrets: ChatbotCredentials, tell: TellFailure): { text: string; auth: boolean } {
  let text = err instanceof ServiceError && knownLine(err) !== undefined ? err.message : tell(err);
  for (const secret of [secrets.secretKey, secrets.sessionKey, secrets.apiKey]) {
    if (secret) text = text.split(secret).join('***');
  }
  const status = err instanceof ServiceError ? err.httpStatus : undefined;
  return { text: text.slice(0, 300), auth: status === 401 || status === 403 };
}

/** GetSession, one RealEstateList page and (with an API key) the /v1 chatbot, in that order. */
export async function checkCredentials(
  client: ChatbotClient,
  c: ChatbotCredentials,
  tell: TellFailure,
): Promise<CheckErrors> {
  try {
    await client.getSession(c.chatbotId);
  } catch (err) {
    const r = refused(err, c, tell);
    return r.auth
      ? { secretKey: `The service refused the secret key (GetSession): ${r.text}` }
      : { chatbotId: `GetSession failed for this chatbot id: ${r.text}` };
  }
  try {
    await client.listListings({ chatbotId: c.chatbotId, page: 1, pageSize: 1 });
  } catch (err) {
    return { sessionKey: `The service refused the session key (RealEstateList): ${refused(err, c, tell).text}` };
  }
  if (!c.apiKey) return {};
  try {
    const listed = await client.v1.listChatbots({ limit: 100 });
    if (!listed.items.some((bot) => bot.id === c.chatbotId)) {
      return { apiKey: `This API key does not reach chatbot ${c.chatbotId} (/v1/chatbots does not list it).` };
    }
  } catch (err) {
    return { apiKey: `The service refused the API key (/v1/chatbots): ${refused(err, c, tell).text}` };
  }
  return {};
}
