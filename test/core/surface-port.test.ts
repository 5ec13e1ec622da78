/**
 * The port core speaks: messaging plus the capabilities a surface hands over once, when it is made.
 * No member is optional (core never asks whether one is there: the typecheck fails if one comes
 * back), and a surface without a capability hands the NO_* value, which answers "nothing, unknown".
 */
import { PassThrough } from 'node:stream';
import { NO_BUDGETS, NO_DIRECTORY, NO_STATUS } from '../../src/core/capabilities';
import type { Place, SurfacePort } from '../../src/core/surface';
import { ShellSurface } from '../../src/surfaces/shell/shell-surface';
import { TestSurface } from '../support/test-surface';

/** The keys of T a value may leave out. */
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];
/** Fails the typecheck when a member of SurfacePort becomes optional again. */
const NONE_OPTIONAL: [OptionalKeys<SurfacePort>] extends [never] ? 'none' : 'some' = 'none';

const place: Place = { surface: 'shell', workspace: 'local', channel: 'C1', thread: 'T1' };

describe('SurfacePort: messaging and capabilities', () => {
  test('no member of the port is optional', () => {
    expect(NONE_OPTIONAL).toBe('none');
  });

  test('the shell hands over no streaming and the NO_* capabilities, which answer "unknown"', async () => {
    const shell: SurfacePort = new ShellSurface({ output: new PassThrough(), interactive: false });
    expect(shell.streaming).toBeUndefined();
    expect([shell.budgets, shell.directory, shell.status]).toEqual([NO_BUDGETS, NO_DIRECTORY, NO_STATUS]);
    expect(shell.budgets.firstWordsWaitMs).toBe(0);
    expect(typeof shell.budgets.reserveFinal(place, 'answer-1')).toBe('function');
    const ref = { place, id: '1' };
    expect(
      await Promise.all([
        shell.directory.permalink(ref),
        shell.directory.channelName(place),
        shell.directory.isMember(place, 'U1'),
        shell.directory.channelAgents(place),
      ]),
    ).toEqual([undefined, undefined, undefined, undefined]);
    expect(shell.directory.mentionGroup('S1')).toBeUndefined();
    await expect(shell.status.setStatus(place, 'is thinking…')).resolves.toBeUndefined();
  });

  test('a surface with native streaming hands it over; one without hands none', async () => {
    const streaming = new TestSurface({ native: { ttlMs: 60_000 } });
    const plain = new TestSurface();
    try {
      expect(plain.streaming).toBeUndefined();
      const stream = await streaming.streaming!.startNativeStream(place, { text: 'Hel' });
      expect(stream?.ref.place).toEqual(place);
      await stream!.stop({ text: 'Hello' });
      expect(streaming.nativeStreams.map((s) => s.finalMessage?.text)).toEqual(['Hello']);
    } finally {
      await streaming.close();
      await plain.close();
    }
  });
});
