/**
 * Answer feedback, durable in the state store (SQLite or Redis: whichever STATE_URL names), so votes
 * survive restarts and every instance sees the same ones.
 *
 * Two records, in the answer's tenant's part of the store (`t:<kind>:<id>:`, tenant-store.ts): the
 * rated answer (`feedback:answer:<id>`: where it was posted, its message and the service's AnswerID)
 * and one vote per person per answer (`feedback:vote:<id>:<user>`). A person's
 * second press replaces their vote atomically (compare-and-set), so concurrent presses on several
 * instances never count twice. Like every record, they expire RETENTION_DAYS after their last write
 * (the store caps every time to live): /analytics reports the votes of that period.
 */
import { readOld } from './old-layout';
import { z } from 'zod';
import type { Json, StateStore } from './store';
import { scoped, scopedPrefix, type ScopedKey, type TenantStore } from './tenant-store';

export const VOTES = ['positive', 'negative'] as const;
export type Vote = (typeof VOTES)[number];

export const ratedAnswerSchema = z.object({
  /** The bridge's id of the rated answer (what the buttons carry). */
  id: z.string().min(1),
  /** Which surface it was posted on (slack, discord, ...). */
  surface: z.string(),
  /** The conversation (thread) it belongs to. */
  conversation: z.string(),
  workspace: z.string(),
  channel: z.string(),
  thread: z.string().optional(),
  /** The message carrying the rating control, once posted. */
  message: z.string().optional(),
  /** The chatbot service's AnswerID, once the answer is complete. */
  answerId: z.union([z.string(), z.number()]).optional(),
  at: z.number(),
});
export type RatedAnswer = z.infer<typeof ratedAnswerSchema>;

export const voteRecordSchema = z.object({
  answer: z.string(),
  user: z.string(),
  vote: z.enum(VOTES),
  surface: z.string(),
  /** When the current vote was cast (a change moves it). */
  at: z.number(),
});
export type VoteRecord = z.infer<typeof voteRecordSchema>;

export type VoteOutcome = { kind: 'recorded' } | { kind: 'changed'; previous: Vote } | { kind: 'unchanged' };

export interface FeedbackTally {
  positive: number;
  negative: number;
  /** Per surface, for the surfaces that have votes. */
  bySurface: Record<string, { positive: number; negative: number }>;
}

/** Where rated answers were kept before they moved into their tenant's part of the store (read, never written). */
const LEGACY_ANSWER_PREFIX = 'feedback:answer:';
const answerKey = (id: string): ScopedKey => scoped('feedback', 'answer', id);

function toJson(value: unknown): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}

/**
 * One tenant's rated answers and votes: its figures count its own votes only. `legacy`: the raw store,
 * where an answer rated before the move is still found (so a press on an old answer still counts).
 */
export class FeedbackStore {
  constructor(
    private readonly store: TenantStore,
    private readonly legacy?: StateStore,
  ) {}

  /**
   * Records (or completes) a rated answer; later fields override earlier ones. `known`: the record as
   * the caller has just read it (null: a new id, none there), so it is not read a second time.
   */
  async saveAnswer(answer: RatedAnswer, known?: RatedAnswer | null): Promise<void> {
    const prev = known === undefined ? await this.answer(answer.id) : (known ?? undefined);
    await this.store.set(answerKey(answer.id), toJson({ ...prev, ...answer }));
  }

  async answer(id: string): Promise<RatedAnswer | undefined> {
    const parsed = ratedAnswerSchema.safeParse(
      (await this.store.get(answerKey(id))) ??
        (this.legacy && (await readOld(this.legacy, `${LEGACY_ANSWER_PREFIX}${id}`))),
    );
    // A legacy answer of another tenant is not this tenant's to rate.
    const { tenant } = this.store;
    if (!parsed.success || parsed.data.surface !== tenant.surface || parsed.data.workspace !== tenant.id)
      return undefined;
    return parsed.data;
  }

  /** One vote per person per answer: a second press of the same vote changes nothing, the other one replaces it. */
  async vote(answer: string, user: string, vote: Vote, surface: string, at: number): Promise<VoteOutcome> {
    const key = this.voteKey(answer, user);
    for (let attempt = 0; attempt < 20; attempt++) {
      const raw = await this.store.get(key);
      const current = voteRecordSchema.safeParse(raw);
      if (current.success && current.data.vote === vote) return { kind: 'unchanged' };
      const next: VoteRecord = { answer, user, vote, surface, at };
      if (await this.store.compareAndSet(key, raw, toJson(next))) {
        return current.success ? { kind: 'changed', previous: current.data.vote } : { kind: 'recorded' };
      }
    }
    throw new Error('feedback: the vote kept changing under us; please press again');
  }

  async voteOf(answer: string, user: string): Promise<VoteRecord | undefined> {
    const parsed = voteRecordSchema.safeParse(await this.store.get(this.voteKey(answer, user)));
    return parsed.success ? parsed.data : undefined;
  }

  /** Every vote on one answer. */
  async votesOn(answer: string): Promise<VoteRecord[]> {
    return this.readVotes(scopedPrefix('feedback', 'vote', answer));
  }

  /** Votes cast in [fromMs, toMs], across surfaces (a changed vote counts once, as it is now). */
  async tally(fromMs: number, toMs: number): Promise<FeedbackTally> {
    const out: FeedbackTally = { positive: 0, negative: 0, bySurface: {} };
    for (const v of await this.readVotes(scopedPrefix('feedback', 'vote'))) {
      if (v.at < fromMs || v.at > toMs) continue;
      out[v.vote]++;
      const s = out.bySurface[v.surface] ?? { positive: 0, negative: 0 };
      out.bySurface[v.surface] = s;
      s[v.vote]++;
    }
    return out;
  }

  /** The votes cast in [fromMs, toMs], as they are now (for a count per day). */
  async votesBetween(fromMs: number, toMs: number): Promise<VoteRecord[]> {
    return (await this.readVotes(scopedPrefix('feedback', 'vote'))).filter((v) => v.at >= fromMs && v.at <= toMs);
  }

  private voteKey(answer: string, user: string): ScopedKey {
    return scoped('feedback', 'vote', answer, user);
  }

  private async readVotes(prefix: ScopedKey): Promise<VoteRecord[]> {
    const out: VoteRecord[] = [];
    for (const key of await this.store.keys(prefix)) {
      const parsed = voteRecordSchema.safeParse(await this.store.get(key));
      if (parsed.success) out.push(parsed.data);
    }
    return out;
  }
}
