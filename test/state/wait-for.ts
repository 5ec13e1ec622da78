import { waitFor as pollFor } from '../support/wait-for';

/** Polls `condition` until it holds or `timeoutMs` passes; the poll interval is not a synchronisation. */
export async function waitFor(condition: () => Promise<boolean> | boolean, timeoutMs = 5000, intervalMs = 20): Promise<void> {
  await pollFor(condition, 'a store condition', timeoutMs, intervalMs);
}
