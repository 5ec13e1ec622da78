import type { Harness } from './helpers';
import type { L } from './demo-oracle';

/** One answer of ClientAsk. */
export interface AskData {
  content: string;
  noAnswer: boolean;
}

/** A question and what its answer must show, computed from the demo data. */
export interface Step {
  q: string;
  check: (a: AskData) => void;
  /** Outside the listings: the only answers marked unanswerable. */
  noAnswer?: boolean;
}

/** MLS numbers an answer names, in order, once each. */
export function named(a: AskData): string[] {
  return [...new Set([...a.content.matchAll(/\bMLS ([A-Z]{3}\d{6})\b/g)].map((m) => m[1]))];
}

/** The answer names exactly these homes (a list shows the first 5 and says how many there are). */
export function exactly(a: AskData, expected: readonly L[]): void {
  const want = expected.map((d) => d.MLSNumber);
  const got = named(a);
  if (want.length <= 5) expect([...got].sort()).toEqual([...want].sort());
  else {
    expect(a.content).toMatch(new RegExp(`\\b${want.length} `));
    expect(got).toHaveLength(5);
    for (const m of got) expect(want).toContain(m);
  }
}

export function says(a: AskData, ...texts: (string | RegExp)[]): void {
  for (const t of texts) {
    if (typeof t === 'string') expect(a.content).toContain(t);
    else expect(a.content).toMatch(t);
  }
}

/** Asks each question in one new session, checking every answer; never a handoff claim or a wire value. */
export async function converse(h: Harness, steps: readonly Step[], chatbot = 'demo'): Promise<void> {
  const sid = await h.session(chatbot);
  for (const step of steps) {
    const r = await h.post<AskData>('/chat/Chat/ClientAsk', { sessionID: sid, content: step.q });
    expect(r.body.Success).toBe(true);
    const a = r.body.Data;
    expect(a.content).not.toMatch(/PreOnMarket|for_sale|for_rent|undefined|NaN/);
    expect(a.noAnswer).toBe(step.noAnswer ?? false);
    try {
      step.check(a);
    } catch (e) {
      throw new Error(`"${step.q}" answered:\n${a.content}\n\n${String(e)}`);
    }
  }
}
