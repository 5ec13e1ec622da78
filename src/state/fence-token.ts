/**
 * Fencing tokens (StateStore.acquireFencedLease): one per acquisition of a lease by an owner that did
 * not hold it. A token is this process's clock in microseconds, above any token it handed out before,
 * so a process's tokens only grow; and a lease is taken by another owner only once it ran out (at
 * least a lease after its last renewal), so the next holder's token is greater unless the two hosts'
 * clocks differ by more than that. A write is refused unless its owner and token are the holder's
 * own (an equality check), so no refusal depends on the clocks.
 */
let last = 0;

export function nextFenceToken(): number {
  last = Math.max(last + 1, Date.now() * 1000);
  return last;
}

/** A lease's stored value on Redis: `<token>\n<owner>` (a value without a newline: an older version's, token 0). */
export function leaseValue(token: number, owner: string): string {
  return `${String(token)}\n${owner}`;
}

export function parseLeaseValue(value: string): { owner: string; token: number } {
  const nl = value.indexOf('\n');
  return nl < 0 ? { owner: value, token: 0 } : { owner: value.slice(nl + 1), token: Number(value.slice(0, nl)) };
}
