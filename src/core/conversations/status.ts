/**
 * The "working on it" status of one answer (Slack: the assistant thread's "is thinking…"): shown
 * before the service is asked, cleared as soon as the first fragment arrives (the answer then shows
 * itself), and cleared at the end whatever happened. Cosmetic: it never fails an answer.
 */
import type { Logger } from 'pino';
import type { AnswerEvent } from '../../service/answer-events';
import type { Place, SurfacePort } from '../surface';

export const THINKING_STATUS = 'is thinking…';

export class AnswerStatus {
  private shown = false;
  private clearing: Promise<void> | undefined;

  constructor(
    private readonly surface: SurfacePort,
    private readonly place: Place,
    private readonly log: Logger,
  ) {}

  async show(): Promise<void> {
    this.shown = true;
    await this.surface.status
      .setStatus(this.place, THINKING_STATUS)
      .catch((err: unknown) => this.log.debug({ err }, 'status: could not set'));
  }

  clear(): Promise<void> {
    if (!this.shown) return Promise.resolve();
    this.clearing ??= this.surface.status
      .setStatus(this.place, '')
      .catch((err: unknown) => this.log.debug({ err }, 'status: could not clear'));
    return this.clearing;
  }

  /** The same events; the first one clears the status (without waiting for the platform). */
  clearOnFirst(events: AsyncIterable<AnswerEvent>): AsyncIterable<AnswerEvent> {
    if (!this.shown) return events;
    const clear = (): void => {
      void this.clear();
    };
    return {
      [Symbol.asyncIterator]: () => {
        const it = events[Symbol.asyncIterator]();
        return {
          next: async () => {
            const r = await it.next();
            clear();
            return r;
          },
          return: (value?: unknown) => it.return?.(value) ?? Promise.resolve({ done: true as const, value: undefined }),
        };
      },
    };
  }
}
