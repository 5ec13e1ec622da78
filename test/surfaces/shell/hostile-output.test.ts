/**
 * Everything the shell prints is stripped of control sequences, not only messages: a form's title,
 * field labels, options and kept values (service-supplied), its error lines, and the error line of a
 * command that failed. The shell runs in-process on piped streams over a scripted core.
 */
import { PassThrough } from 'stream';
import type { BridgeCore } from '../../../src/core/surface';
import { terminalSafe } from '../../../src/surfaces/shell/render';
import { Shell } from '../../../src/surfaces/shell/shell';
import { ShellSurface } from '../../../src/surfaces/shell/shell-surface';

const BAD = '\u001b]0;pwned\u0007\u001b[2J\u001b[1A\u009b5m\r';
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

test('form prompts, form errors and error lines print without control sequences', async () => {
  const input = new PassThrough();
  const out = new PassThrough();
  let output = '';
  out.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const surface = new ShellSurface({ output: out, interactive: false });
  let submits = 0;
  const core: BridgeCore = {
    async command(inv, name) {
      if (name === 'history') throw new Error(`the service said ${BAD}no`);
      await inv.openForm?.({
        id: 'f',
        title: `Edit ${BAD}listing`,
        state: '',
        fields: [
          {
            name: 'City',
            label: `City${BAD}`,
            kind: 'select',
            required: true,
            group: 'g',
            options: [{ value: 'aus', label: `Austin${BAD}` }],
            initial: 'aus',
          },
          { name: 'Notes', label: 'Notes', kind: 'text', required: false, group: 'g', initial: `kept ${BAD}value` },
        ],
      });
    },
    message: async () => true,
    action: async () => undefined,
    submitForm: async () =>
      ++submits === 1 ? { ok: false, errors: { [`Notes${BAD}`]: `too ${BAD}long` } } : { ok: true },
  };
  const shell = new Shell({ core, surface, input, output: out, interactive: false });
  const done = shell.run();
  input.end(['/listing update X', '', '', 'short', '/history', ''].join('\n'));
  await done;
  expect(output).toContain('Edit listing');
  expect(output).toContain('City* (Austin) [Austin]: ');
  expect(output).toContain('[kept value]');
  expect(output).toContain('Notes: too long');
  expect(output).toContain('Error: the service said no');
  expect(output).not.toMatch(CONTROL);
});

test('terminalSafe keeps colours and strips every other sequence', () => {
  expect(terminalSafe(`\u001b[31mred\u001b[39m ${BAD}plain`)).toBe('\u001b[31mred\u001b[39m plain');
});
