/**
 * What the Slack and Discord `/chatbot connect` end-to-end tests share: chatbots of their own on the
 * local service, which chatbot answered a question, a key as the bridge shows it masked, and the
 * check that no key is found in what the platform, the log or the store received.
 */
import type { InProcessE2E } from './app-env';

export interface Bot {
  id: string;
  apiKey: string;
}

/** Chatbots made on the local service, one per name, each with its own /v1 key. */
export async function makeChatbots(e: InProcessE2E, ...names: string[]): Promise<Bot[]> {
  const bots: Bot[] = [];
  for (const name of names) {
    const made = await e.app.client.v1.createChatbot({ name });
    if (!made.apiKey) throw new Error('the service gave no api key');
    bots.push({ id: made.id, apiKey: made.apiKey });
  }
  return bots;
}

/** The local service's own keys (every chatbot there shares them). */
export function serviceKeys(e: InProcessE2E): { secretKey: string; sessionKey: string } {
  return { secretKey: e.service.credentials.secretKey, sessionKey: e.service.credentials.sessionKey };
}

/** The chatbot the service answered `question` with (the chat session's chatbot). */
export function chatbotThatAnswered(e: InProcessE2E, question: string): string | undefined {
  const row = e.service.context.db
    .prepare(
      `SELECT s.chatbot_id AS c FROM messages m JOIN sessions s ON s.id = m.session_id
        WHERE m.role = 'user' AND m.content = ? ORDER BY m.id DESC LIMIT 1`,
    )
    .get(question) as { c: string } | undefined;
  return row?.c;
}

/** A key as the bridge shows it back: its first 3 and last 4 characters. */
export function masked(secret: string): string {
  return `${secret.slice(0, 3)}…${secret.slice(-4)}`;
}

/** Every key and value of the bridge's state store, as text. */
export async function storedText(e: InProcessE2E): Promise<string> {
  const stored: string[] = [];
  for (const key of await e.app.store.keys('')) stored.push(key, JSON.stringify(await e.app.store.get(key)));
  return stored.join('\n');
}

/** Each secret is in none of the places (named, so a failure says which secret leaked where). */
export function expectNoSecretIn(secrets: string[], places: Record<string, string>): void {
  for (const secret of secrets)
    for (const [place, text] of Object.entries(places))
      expect({ place, secret, found: text.includes(secret) }).toEqual({ place, secret, found: false });
}
