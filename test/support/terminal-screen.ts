/**
 * What a terminal shows after a stream of output: a small VT100 subset (the one the shell and
 * readline use: CR, LF, wrapping, CSI G/F/E/A/B/C/D/K/J, SGR and other sequences skipped). Lines
 * scrolled off the top are kept, so a test can read the whole screen history as a person would see
 * it after scrolling back, with rewritten lines rewritten.
 */
export function screenOf(output: string, columns: number): string[] {
  const rows: string[][] = [[]];
  let row = 0;
  let col = 0;
  const line = () => {
    while (rows.length <= row) rows.push([]);
    return rows[row] as string[];
  };
  const ESC = String.fromCharCode(0x1b);
  const BEL = String.fromCharCode(0x07);
  for (let i = 0; i < output.length; i += 1) {
    const ch = output[i] as string;
    if (ch === ESC) {
      const next = output[i + 1];
      if (next === '[') {
        // CSI: parameters, then one final byte.
        let j = i + 2;
        while (j < output.length && /[0-?]/.test(output[j] as string)) j += 1;
        while (j < output.length && /[ -/]/.test(output[j] as string)) j += 1;
        const params = output.slice(i + 2, j).replace(/^\?/, '');
        const n = Number.parseInt(params.split(';')[0] ?? '', 10);
        const final = output[j];
        const count = Number.isNaN(n) ? 1 : Math.max(1, n);
        if (final === 'G') col = (Number.isNaN(n) ? 1 : n) - 1;
        else if (final === 'F' || final === 'A') {
          row = Math.max(0, row - count);
          if (final === 'F') col = 0;
        } else if (final === 'E' || final === 'B') {
          row += count;
          if (final === 'E') col = 0;
        } else if (final === 'C') col += count;
        else if (final === 'D') col = Math.max(0, col - count);
        else if (final === 'K') {
          const mode = Number.isNaN(n) ? 0 : n;
          const l = line();
          if (mode === 2) l.length = 0;
          else if (mode === 0) l.length = Math.min(l.length, col);
          else for (let k = 0; k <= col && k < l.length; k += 1) l[k] = ' ';
        } else if (final === 'J') {
          const mode = Number.isNaN(n) ? 0 : n;
          if (mode === 0) {
            line().length = Math.min(line().length, col);
            rows.length = row + 1;
          }
        }
        i = j;
      } else if (next === ']') {
        // OSC: up to BEL or ST.
        const end = output.indexOf(BEL, i);
        const st = output.indexOf(`${ESC}\\`, i);
        const stop = [end, st >= 0 ? st + 1 : -1].filter((v) => v >= 0);
        i = stop.length > 0 ? Math.min(...stop) : output.length;
      } else {
        i += 1;
      }
      continue;
    }
    if (ch === '\r') col = 0;
    else if (ch === '\n') {
      // A terminal's line discipline turns LF into CR LF (onlcr), so in-process streams read the same.
      row += 1;
      col = 0;
    } else if (ch === '\b') col = Math.max(0, col - 1);
    else if (ch >= ' ') {
      if (col >= columns) {
        row += 1;
        col = 0;
      }
      const l = line();
      while (l.length < col) l.push(' ');
      l[col] = ch;
      col += 1;
    }
    line();
  }
  return rows.map((r) => r.join('').trimEnd());
}
