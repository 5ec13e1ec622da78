/**
 * SIGTERM: the process finishes or marks its in-flight answers and exits within 10 s (the contract's
 * bound; the Procfile runs node directly so the signal reaches it). The test stops it the way a
 * supervisor does: SIGTERM, then SIGKILL once the grace period is over; a process that needed the
 * SIGKILL shows in its exit (and leaves its answer unmarked), so the outcome is what is asserted.
 */
import { type BridgeProcess, type ExitInfo, buttonsOf, shownText } from '../../support/bridge-process';
import { typing, useRig } from './rig';

const STATE_URL = 'redis://127.0.0.1:6379/14';
const LONG_QUESTION = 'Give me the long answer: all listings please';
const GRACE_MS = 10_000;

/** SIGTERM, and SIGKILL when the grace period is over, as a supervisor does; resolves with the exit. */
async function terminate(bridge: BridgeProcess): Promise<ExitInfo> {
  bridge.signal('SIGTERM');
  const graceOver = setTimeout(() => bridge.signal('SIGKILL'), GRACE_MS);
  try {
    return await bridge.waitExit(GRACE_MS + 5000);
  } finally {
    clearTimeout(graceOver);
  }
}

describe('reliability: SIGTERM', () => {
  // About 375 fragments 40 ms apart: the answer would stream for about 15 s, longer than the bound.
  const rig = useRig({ fragmentDelayMs: 40, flushRedis: STATE_URL, slack: { streaming: 'unknown_method' } });

  test('mid-answer: exits 0 by itself within the 10 s grace, the answer marked interrupted with Retry (no placeholder left)', async () => {
    const bridge = await rig.start('sigterm-a', { stateUrl: STATE_URL });
    const root = await rig.ask(bridge, LONG_QUESTION, 'C0TERM');
    await rig.expectMidStream('C0TERM', root.ts);

    const exit = await terminate(bridge);
    expect(exit).toMatchObject({ signal: null, code: 0 });

    // Finished or marked before it went: nothing is still typing, and an unfinished answer says so.
    const replies = rig.botReplies('C0TERM', root.ts);
    expect(replies.length).toBeGreaterThan(0);
    expect(replies.some(typing)).toBe(false);
    const last = replies.at(-1)!;
    const complete =
      rig.service.storedAnswers(LONG_QUESTION).length > 0 && buttonsOf(last).some((b) => b.text === 'Talk to a human');
    if (!complete) {
      expect(shownText(last)).toMatch(/interrupted/i);
      expect(buttonsOf(last).some((b) => b.text === 'Retry')).toBe(true);
      expect(last.text.length).toBeGreaterThan(0);
    }
    expect(bridge.lines.some((l) => l.msg === 'stopping' && l.signal === 'SIGTERM')).toBe(true);
  }, 60_000);

  test('idle: exits 0 by itself within the 10 s grace', async () => {
    const bridge = await rig.start('sigterm-b', { stateUrl: STATE_URL });
    const exit = await terminate(bridge);
    expect(exit).toMatchObject({ signal: null, code: 0 });
  }, 30_000);
});
