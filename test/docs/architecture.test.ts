/**
 * docs/architecture.md stays true to the tree: every path it names exists, and the counts it gives
 * for one `/ask` are those of its own hop table.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');

/** Backticked words that are paths in the repository (a route like `/slack/events` is not). */
function namedPaths(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/`([^`\s]+)`/g)) {
    const word = m[1] ?? '';
    if (!word.includes('/') || word.startsWith('/') || /^[a-z]+:/.test(word)) continue;
    if (!/^(src|test|docs|bench|fakes)\//.test(word)) continue;
    out.add(word);
  }
  return [...out];
}

describe('docs/architecture.md', () => {
  test('names paths, and every one of them exists', () => {
    const paths = namedPaths(doc);
    expect(paths.length).toBeGreaterThan(40);
    expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  test("the life of one /ask: the counts written down are the hop table's", () => {
    const section = doc.slice(doc.indexOf('## The life of one `/ask`'), doc.indexOf('**Counted:'));
    const rows = [...section.matchAll(/^\| (\d+) \| `([^`]+)` → `([^`]+)`/gm)];
    expect(rows.map((r) => Number(r[1]))).toEqual(rows.map((_, i) => i + 1));
    const files = new Set(rows.flatMap((r) => [r[2], r[3]]));
    const counted = /\*\*Counted: (\d+) hops across (\d+) files\*\*/.exec(doc);
    expect(counted).not.toBeNull();
    expect([Number(counted?.[1]), Number(counted?.[2])]).toEqual([rows.length, files.size]);
  });
});
