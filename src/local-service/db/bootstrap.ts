import crypto from 'node:crypto';
import type { ChatbotsRepo } from '../chatbots/chatbots-repo';
import { demoListings } from '../demo/demo-listings';
import type { ListingsRepo } from '../listings/listings-repo';
import type { Db } from './open';

export interface Credentials {
  secretKey: string;
  sessionKey: string;
  apiKey: string;
}

const META_KEYS = { secretKey: 'secret_key', sessionKey: 'session_key', apiKey: 'api_key' } as const;
const PREFIX = { secretKey: 'sk_', sessionKey: 'ssk_', apiKey: 'ak_' } as const;

/**
 * The keys the service accepts: given ones win; missing ones are generated once and kept in the
 * database, so a restart on the same file accepts the same keys. `generated` lists the ones made now.
 */
export function resolveCredentials(
  db: Db,
  given: Partial<Credentials>,
): { credentials: Credentials; generated: (keyof Credentials)[] } {
  const get = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?');
  const put = db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?)');
  const generated: (keyof Credentials)[] = [];
  const pick = (name: keyof Credentials): string => {
    const explicit = given[name];
    if (explicit) return explicit;
    const stored = get.get(META_KEYS[name])?.value;
    if (stored) return stored;
    const fresh = PREFIX[name] + crypto.randomBytes(24).toString('hex');
    put.run(META_KEYS[name], fresh);
    generated.push(name);
    return fresh;
  };
  const credentials = { secretKey: pick('secretKey'), sessionKey: pick('sessionKey'), apiKey: pick('apiKey') };
  return { credentials, generated };
}

/** On a database that lacks it, creates the demo chatbot with its listings. */
export function ensureDemoChatbot(chatbots: ChatbotsRepo, listings: ListingsRepo, chatbotId: string): void {
  if (chatbots.get(chatbotId)) return;
  chatbots.create({
    id: chatbotId,
    name: 'Skyline Realty Assistant',
    status: 'active',
    description: 'Demo chatbot of the local chatbot service: answers questions about its listings.',
    settings: {
      WelcomeMessage:
        "Hi, I'm the Skyline Realty assistant! I can help you find homes for sale or for rent in Austin, Denver, Seattle and Miami. Ask me about a city, a price range, bedrooms or an MLS number.",
      TalkToHumanResponseMessage:
        "That's outside what I can answer from our listings. I can help with homes for sale or for rent in Austin, Denver, Seattle and Miami: prices, bedrooms, addresses or MLS numbers. For anything else, one of our agents can help you.",
      SuggestedMessage: 'Show me 3 bedroom homes for sale in Austin',
      TalkToHumanEmail: 'agents@skyline-realty.example.com',
    },
    withApiKey: false,
  });
  listings.createMany(chatbotId, demoListings());
}
