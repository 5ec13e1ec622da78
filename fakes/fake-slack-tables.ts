/**
 * The fake Slack's check of a data_table block, as Slack's reference describes it: a caption, rows
 * of cells (raw_text or raw_number, or rich_text outside the header), the first row the header,
 * 2 to 101 rows (a header and up to 100), 1 to 20 columns with every row the same length, page_size
 * 1 to 100, row_header_column_index inside the row, raw_text at least one character.
 */
type Obj = Record<string, unknown>;

function cellProblem(c: unknown, header: boolean): string | undefined {
  if (typeof c !== 'object' || c === null) return 'cell is not an object';
  const cell = c as Obj;
  if (cell.type === 'raw_text')
    return typeof cell.text === 'string' && cell.text.length > 0 ? undefined : 'empty raw_text';
  if (cell.type === 'raw_number') return undefined;
  if (cell.type === 'rich_text') return header ? 'rich_text in the header row' : undefined;
  return `unknown cell type ${String(cell.type)}`;
}

/** What is wrong with a data_table block (undefined: nothing). */
export function dataTableProblem(b: Obj): string | undefined {
  if (typeof b.caption !== 'string' || b.caption.length === 0) return 'caption is required';
  if (
    b.page_size !== undefined &&
    (!Number.isInteger(b.page_size) || (b.page_size as number) < 1 || (b.page_size as number) > 100)
  )
    return 'page_size must be 1 to 100';
  const rows = b.rows;
  if (!Array.isArray(rows) || rows.length < 2 || rows.length > 101) return 'rows: a header and 1 to 100 rows';
  const width = Array.isArray(rows[0]) ? rows[0].length : 0;
  if (width < 1 || width > 20) return 'rows: 1 to 20 columns';
  const headerAt = b.row_header_column_index;
  if (
    headerAt !== undefined &&
    (!Number.isInteger(headerAt) || (headerAt as number) < 0 || (headerAt as number) >= width)
  )
    return 'row_header_column_index outside the row';
  for (const [i, r] of rows.entries()) {
    if (!Array.isArray(r) || r.length !== width) return `row ${i}: every row has the header's ${width} cells`;
    for (const c of r) {
      const bad = cellProblem(c, i === 0);
      if (bad) return `row ${i}: ${bad}`;
    }
  }
  return undefined;
}
