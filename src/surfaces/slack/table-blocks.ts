/**
 * Slack's data_table block (a table people sort and page through): a caption, a header row, one row
 * per item, every cell raw text (no mrkdwn is parsed there, but the three control characters are still
 * escaped, as in every text of this surface, so a listing's words never carry `<!here>` to Slack). Slack's limits:
 * 1 to 20 columns, every row the same length, a header and 1 to 100 rows, page_size 1 to 100; cells
 * at least one character. Workspaces that do not know the block refuse it (`invalid_blocks`): the
 * card fallback (card-fallback.ts) then sends the message without its table, and remembers.
 */
import type { DataTable } from '../../core/surface';
import { escapeAll } from './safe-text';

/** Rows shown per page of the table. */
export const TABLE_PAGE_SIZE = 10;
/** Cards shown beside a table (the first few items; the table has them all). */
export const CARDS_BESIDE_TABLE = 3;
const MAX_COLUMNS = 20;
const MAX_ROWS = 100;
const MAX_CELL = 500;

const cell = (s: string) => {
  const text = s.replace(/\s+/g, ' ').trim() || '—';
  return { type: 'raw_text', text: escapeAll(text.length <= MAX_CELL ? text : `${text.slice(0, MAX_CELL - 1)}…`) };
};

export function dataTableBlock(t: DataTable): Record<string, unknown> {
  const width = Math.min(t.header.length, MAX_COLUMNS);
  const row = (r: string[]) => Array.from({ length: width }, (_, i) => cell(r[i] ?? ''));
  return {
    type: 'data_table',
    caption: escapeAll(t.caption.slice(0, 200) || 'Table'),
    page_size: TABLE_PAGE_SIZE,
    rows: [row(t.header), ...t.rows.slice(0, MAX_ROWS).map(row)],
  };
}
