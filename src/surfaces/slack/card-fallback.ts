/**
 * Newer blocks (data_table, data_visualization) are unknown to some workspaces: a refusal sends the
 * message again without them (today's layout: no table, the chart's PNG) and remembers the workspace.
 * Card and carousel blocks are newer than some workspaces: where Slack refuses them
 * (`invalid_blocks`), the message goes again once with the older section blocks, and the workspace
 * is remembered (in the store, so every instance and a restart know) to get sections from then on.
 */
import type { Logger } from 'pino';
import type { OutMessage } from '../../core/surface';
import type { StateStore } from '../../state/store';
import { type CardLayout, type RenderedMessage, renderMessage } from './blocks';
import { failingImagePointers, isImageDownloadFailure } from './image-retry';
import { slackErrorCode } from './web';
import { scoped, tenantFor, tenantStore } from '../../state/tenant-store';
import { readMoving, writeMoving } from '../../state/moved-records';
import { slackRecords } from './records';

/** How long a workspace that refused cards gets sections before cards are tried again. */
const REMEMBER_MS = 7 * 24 * 60 * 60 * 1000;

/** Slack's newer blocks: a workspace that refuses one gets neither (today's layout). */
const NEW_BLOCKS = new Set(['data_table', 'data_visualization']);

/** In the workspace's part of the store: it refused a data_table (or data_visualization) block. */
const NEW_BLOCKS_KEY = scoped('slack', 'refuses-new-blocks');

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
  /** Per workspace: whether it refused Slack's newer blocks (a data_table), read from the store once. */
  private readonly plain = new Map<string, Promise<boolean>>();

  constructor(
    private readonly store: StateStore,
    private readonly log: Logger,
  ) {}

  /** The workspace left (its store mark goes with its keys): a re-install tries cards again. */
  forget(team: string): void {
    this.sections.delete(team);
    this.plain.delete(team);
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

  /** Whether the workspace refused Slack's newer blocks (data_table): read from its part of the store once. */
  private refusesNew(team: string): Promise<boolean> {
    let known = this.plain.get(team);
    if (!known) {
      known = this.view(team)
        .get(NEW_BLOCKS_KEY)
        .then(
          (v) => v !== undefined,
          () => false,
        );
      this.plain.set(team, known);
    }
    return known;
  }

  private view(team: string) {
    return tenantStore(this.store, tenantFor('slack', team || '-'));
  }

  /**
   * Sends `message` rendered for the workspace (read when the call goes out, like every `latest`).
   * A refusal (`invalid_blocks`) of a message with a newer block (a table) sends it again without
   * it, today's layout, and remembers the workspace; then a refusal of its carousel sends it once
   * more as sections and remembers that. Newer blocks are tried first: a refusal of both at once
   * must not cost the workspace its cards.
   */
  async send<T>(
    team: string,
    message: () => OutMessage,
    send: (render: () => RenderedMessage) => Promise<T>,
  ): Promise<T> {
    let layout = await this.layout(team);
    let plain = await this.refusesNew(team);
    for (;;) {
      let carousel = false;
      let fresh = false;
      let sent: RenderedMessage | undefined;
      const render = (): RenderedMessage => {
        const m = plain ? withoutNewBlocks(message()) : message();
        fresh = m.table !== undefined || m.chart !== undefined;
        sent = renderMessage(m, layout);
        carousel = hasCarousel(sent);
        return sent;
      };
      try {
        return await send(render);
      } catch (err) {
        if (slackErrorCode(err) !== 'invalid_blocks' || isImageDownloadFailure(err)) throw err;
        // The block Slack named, when it names one; else the newer block is the likelier stranger.
        const named = refusedTypes(err, sent);
        if (fresh && (named.length === 0 || named.some((t) => NEW_BLOCKS.has(t)))) {
          plain = true;
          this.plain.set(team, Promise.resolve(true));
          await this.view(team)
            .set(NEW_BLOCKS_KEY, Date.now(), REMEMBER_MS)
            .catch(() => undefined);
          this.log.info({ team }, 'slack: this workspace refused a newer block; no tables or charts here (cards, PNG)');
          continue;
        }
        if (!carousel || layout === 'sections') throw err;
        layout = 'sections';
        this.sections.set(team, Promise.resolve(true));
        const r = slackRecords.cardsSections(this.store, team);
        await writeMoving(this.store, r.view, r.key, r.legacy, Date.now(), REMEMBER_MS).catch(() => undefined);
        this.log.info({ team }, 'slack: this workspace refused card blocks; listings show as sections here');
      }
    }
  }
}

/** The types of the blocks a refusal names by pointer (`[json-pointer:/blocks/N]`). */
function refusedTypes(err: unknown, sent: RenderedMessage | undefined): string[] {
  const out: string[] = [];
  for (const p of failingImagePointers(err)) {
    const i = /^\/blocks\/(\d+)/.exec(p)?.[1];
    const type = i === undefined ? undefined : sent?.blocks[Number(i)]?.type;
    if (typeof type === 'string') out.push(type);
  }
  return out;
}

/** The message as it was before Slack's newer blocks: no table, no chart (its PNG goes), every card. */
function withoutNewBlocks(m: OutMessage): OutMessage {
  if (m.table === undefined && m.chart === undefined) return m;
  const { table: _table, chart: _chart, ...rest } = m;
  return rest;
}

/** Whether Slack drew the message's chart itself (else its PNG is to go). */
export function drewChart(r: RenderedMessage): boolean {
  return r.blocks.some((b) => b.type === 'data_visualization');
}
