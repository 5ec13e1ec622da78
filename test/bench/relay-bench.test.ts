import { runRelayScenario } from '../../bench/relay-bench';

// Tiny scale: the relays and the fake's measurements work end to end. No timing assertions.
describe('relay bench (smoke)', () => {
  const tiny = { channels: 2, answerChars: 300, streamMs: 1_000, arrivalWindowMs: 300, graceMs: 5_000 };

  it.each(['ours-update', 'ours-native'] as const)(
    '%s: every answer exact, no 429',
    async (kind) => {
      const f = await runRelayScenario(kind, 3, tiny);
      expect(f.rateLimited).toBe(0);
      expect(f.exact).toBe(3);
      expect(f.exactPct).toBe(100);
      expect(f.unfinished).toBe(0);
      expect(f.firstVisibleP95Ms).not.toBeNull();
      expect(f.finalLagP95Ms).not.toBeNull();
      // A placeholder and a final per answer at least.
      expect(f.callsPerAnswer).toBeGreaterThanOrEqual(2);
    },
    20_000,
  );

  it('ours-native with answers of different lengths (none known in advance): every answer exact, no 429', async () => {
    const f = await runRelayScenario('ours-native', 3, { ...tiny, unknownLengths: true });
    expect(f.rateLimited).toBe(0);
    expect(f.exact).toBe(3);
    expect(f.unfinished).toBe(0);
  }, 20_000);

  it('ours-native where Slack answers unknown_method, slowly at first: one start refused, every answer exact', async () => {
    const f = await runRelayScenario('ours-native', 3, { ...tiny, streaming: 'unknown_method', slowStartsMs: 500 });
    expect(f.startRefusals).toBe(1);
    expect(f.nativeAnswers).toBe(0);
    expect(f.exact).toBe(3);
    expect(f.rateLimited).toBe(0);
  }, 20_000);

  it('naive: one edit per fragment, far more calls than ours', async () => {
    const f = await runRelayScenario('naive', 2, tiny);
    expect(f.exact).toBe(2);
    expect(f.callsPerAnswer).toBeGreaterThan(10);
  }, 20_000);
});
