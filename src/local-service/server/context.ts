import type { Answerer } from '../answerer/types';
import type { ChatRepo } from '../chat/chat-repo';
import type { ChatbotsRepo } from '../chatbots/chatbots-repo';
import type { Credentials } from '../db/bootstrap';
import type { Db } from '../db/open';
import type { ListingsRepo } from '../listings/listings-repo';
import type { UploadsRepo } from '../uploads/uploads-repo';

export type StreamFraming = 'sse' | 'ndjson';

/** Everything a route needs; one per service instance. */
export interface ServiceContext {
  db: Db;
  chatbots: ChatbotsRepo;
  listings: ListingsRepo;
  chat: ChatRepo;
  uploads: UploadsRepo;
  credentials: Credentials;
  answerer: Answerer;
  framing: StreamFraming;
  /** Injectable clock for the limits' windows (tests of the monthly cap). */
  now: () => number;
}
