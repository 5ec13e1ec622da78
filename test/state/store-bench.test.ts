import { formatStoreBench, runStoreBench } from '../../bench/store-bench';

describe('runStoreBench', () => {
  it('measures every operation on both stores and prints a table', async () => {
    const result = await runStoreBench({ ops: 50, redisUrl: 'redis://127.0.0.1:6379/9' });
    expect(result.skipped).toEqual([]);
    expect(result.rows).toHaveLength(8);
    for (const row of result.rows) expect(row.opsPerSec).toBeGreaterThan(0);
    const text = formatStoreBench(result);
    expect(text).toMatch(/sqlite\s+takeToken\s+\d+/);
    expect(text).toMatch(/redis\s+push\+ack\s+\d+/);
  });
});
