import { runMemoryBench } from '../../bench/memory-bench';

describe('memory bench', () => {
  // Without --expose-gc (jest) the heap delta includes garbage, so only settling and the shape are checked.
  it('settles with every conversation live and reports figures per 1,000', async () => {
    const figures = await runMemoryBench(50);
    expect(figures.conversations).toBe(50);
    expect(Number.isFinite(figures.heapBytesPer1000)).toBe(true);
    expect(Number.isFinite(figures.rssBytesPer1000)).toBe(true);
  }, 30_000);
});
