/**
 * What conversations need of the relay (src/core/relay): only `run`, typed by the relay's own
 * request and result, so the conversation engine depends on the relay's behaviour, not its
 * construction.
 */
import type { RelayRequest, RelayResult } from '../relay/relay';

export interface AnswerRelay {
  run(options: RelayRequest): Promise<RelayResult>;
}
