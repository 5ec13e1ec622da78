/**
 * The crash window between a queue item marked "started" and the relay's in-flight record: the
 * bridge is SIGKILLed exactly there (a test hook pauses it at that point), restarted, and within
 * 60 s the thread ends with the answer (or a marked message with Retry), with no placeholder left
 * hanging. Before this was fixed, the next worker skipped the started item and nobody recovered it.
 */
import type { FakeMessage } from '../../../fakes/fake-slack';
import { tempDir } from '../../support/app-env';
import { waitFor } from '../../../fakes/slack-requests';
import { buttonsOf, shownText } from '../../support/bridge-process';
import { useRig } from './rig';

const WITHIN_MS = 60_000;
const HOOK_LINE = 'test hook: paused between started and the in-flight record';

describe('reliability: killed between "started" and the in-flight record', () => {
  const rig = useRig({ fragmentDelayMs: 2 });
  const tmp = tempDir('crash-window-');
  const stateUrl = `sqlite:${tmp.dir}/bridge.db`;
  const typing = (m: FakeMessage): boolean =>
    m.streaming === true || JSON.stringify(m.blocks).includes('▍') || m.text === '' || m.text === 'Thinking…';
  afterAll(() => tmp.remove());

  test.each([['native streaming'], ['chat.update (placeholder first)']] as const)(
    'SIGKILL in the window, restart: the thread is answered or marked with Retry within 60 s (%s)',
    async (label) => {
      const channel = label.startsWith('native') ? 'C0CRASHN' : 'C0CRASHU';
      rig.fake.setStreaming(label.startsWith('native') ? 'on' : 'unknown_method');
      const question = `Homes for sale in Austin? (${label})`;
      const victim = await rig.start(`crash-${channel}`, { stateUrl, extra: { BRIDGE_TEST_PAUSE_BEFORE_RELAY: '1' } });
      const root = await rig.ask(victim, question, channel);
      await rig.expectLine(victim, HOOK_LINE, 20_000);
      victim.signal('SIGKILL');
      const killedAt = (await victim.waitExit(5000)).at;

      await rig.start(`crash-${channel}`, { stateUrl });
      const outcome = await waitFor(
        () => {
          const replies = rig.botReplies(channel, root.ts);
          if (replies.length === 0 || replies.some(typing)) return undefined;
          if (rig.answerAt(channel, root.ts, question) !== undefined) return 'answered';
          const last = replies.at(-1)!;
          if (/interrupted/i.test(shownText(last)) && buttonsOf(last).some((b) => b.text === 'Retry')) return 'marked';
          return undefined;
        },
        'the thread answered or marked with Retry',
        // A bound on the wait (WITHIN_MS from the kill), not a measurement.
        Math.max(1, killedAt + WITHIN_MS - Date.now()),
      );
      expect(['answered', 'marked']).toContain(outcome);
      // No placeholder or typing mark is left anywhere in the thread.
      expect(rig.botReplies(channel, root.ts).filter(typing)).toEqual([]);
    },
    150_000,
  );
});
