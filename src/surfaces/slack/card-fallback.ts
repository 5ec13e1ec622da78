/**
 * Card and carousel blocks are newer than some workspaces: where Slack refuses them
 * (`invalid_blocks`), the message goes again once with the older section blocks, and the workspace
 * is remembered (in the store, so every instance and a restart know) to get sections from then on.
 */
import type { Logger } from 'pino';
import type { OutMessage } from '../../core/surface';
import { readMoving, writeMoving } from '../../state/moved-records';
import type { StateStore } from '../../state/store';
import { type CardLayout, type RenderedMessage, renderMessage } from './blocks';
import { isImageDownloadFailure } from './image-retry';
import { slackRecords } from './records';
import { slackErrorCode } from './web';

/** How long a workspace that refused cards gets sections before cards are tried again. */
const REMEMBER_MS = 7 * 24 * 60 * 60 * 1000;

function hasCarousel(r: RenderedMessage): boolean {
  return r.blocks.some((b) => b.type === 'carousel');
}

/**
 * The per-workspace answer is also held in this process, read from the store once: a latency copy
 * of the store's mark (which every instance shares), keyed by workspace, naming no user or channel,
 * one entry per installed workspace, and dropped by `forget` when the workspace leaves.
 */
export class CardFallback {
  /** Per workspace: whether it gets sections (read from the store once per process). */
  private readonly sections = new Map<string, Promise<boolean>>();

  constructor(
    private readonly store: StateStore,
    private readonly log: Logger,
  ) {}

  /** The workspace left (its store mark goes with its keys): a re-install tries cards again. */
  forget(team: string): void {
    this.sections.delete(team);
  }

  layout(team: string): Promise<CardLayout> {
    let known = this.sections.get(team);
    if (!known) {
      const r = slackRecords.cardsSections(this.store, team);
      known = readMoving(this.store, r.view, r.key, r.legacy, REMEMBER_MS).then(
        (v) => v !== undefined,
        () => false,
      );
      this.sections.set(team, known);
    }
    return known.then((legacy) => (legacy ? 'sections' : 'carousel'));
  }

  /**
   * Sends `message` rendered for the workspace (read when the call goes out, like every `latest`);
   * a refusal of its carousel sends it once more as sections and remembers the workspace.
   */
  async send<T>(
    team: string,
    message: () => OutMessage,
    send: (render: () => RenderedMessage) => Promise<T>,
  ): Promise<T> {
    const layout = await this.layout(team);
    let carousel = false;
    const render = (l: CardLayout) => (): RenderedMessage => {
      const r = renderMessage(message(), l);
      carousel = hasCarousel(r);
      return r;
    };
    try {
      return await send(render(layout));
    } catch (err) {
      if (!carousel || slackErrorCode(err) !== 'invalid_blocks' || isImageDownloadFailure(err)) throw err;
      this.sections.set(team, Promise.resolve(true));
      const r = slackRecords.cardsSections(this.store, team);
      await writeMoving(this.store, r.view, r.key, r.legacy, Date.now(), REMEMBER_MS).catch(() => undefined);
      this.log.info({ team }, 'slack: this workspace refused card blocks; listings show as sections here');
      return send(render('sections'));
    }
  }
}
