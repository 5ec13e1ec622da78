/**
 * The newest lines of a transcript that fit a character budget (each line counts one newline),
 * oldest first: a transcript shown in one message keeps its most recent part.
 */
export function recentLines(lines: readonly string[], budget: number): string[] {
  const kept: string[] = [];
  let used = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] ?? '';
    if (used + line.length + 1 > budget) break;
    kept.unshift(line);
    used += line.length + 1;
  }
  return kept;
}
