/** The listing page cache is bounded by bytes: old pages go first, huge pages are not kept. */
import { PageCache } from '../../src/local-service/listings/page-cache';

test('stays within its byte budget, evicting the oldest pages first', () => {
  const cache = new PageCache(10_000);
  for (let i = 0; i < 100; i++) cache.set(`p${i}`, 'x'.repeat(400));
  expect(cache.bytes).toBeLessThanOrEqual(10_000);
  expect(cache.get('p0')).toBeUndefined();
  expect(cache.get('p99')).toBe('x'.repeat(400));
});

test('a page bigger than a quarter of the budget is not cached; replacing a key does not double count', () => {
  const cache = new PageCache(10_000);
  cache.set('big', 'y'.repeat(2_000));
  expect(cache.get('big')).toBeUndefined();
  cache.set('a', 'z'.repeat(100));
  const once = cache.bytes;
  cache.set('a', 'z'.repeat(100));
  expect(cache.bytes).toBe(once);
  cache.clear();
  expect(cache.bytes).toBe(0);
});
