/** The shell never hands the terminal a control sequence that came from the service or a listing. */
import { palette, renderMessage, stripControl } from '../../../src/surfaces/shell/render';

test('ESC sequences and control characters are removed, text and newlines stay', () => {
  const hostile =
    'Price \u001b[2J\u001b[H$500k\u001b]0;pwned\u0007 in \u001b[31mAustin\u001b[0m\u0007\r\nline two\u009b1;1Hend\u001bc';
  expect(stripControl(hostile)).toBe('Price $500k in Austin\nline twoend');
});

test('renderMessage strips answers, notices, cards and button labels', () => {
  const out = renderMessage(
    {
      text: 'Answer \u001b]8;;http://evil\u001b\\link\u001b]8;;\u001b\\',
      notice: '\u001b[5mblink',
      cards: [
        { title: 'Home\u001b[2K', fields: [{ label: 'City', value: 'Austin\u0007' }], url: 'https://x.test/\u001b[1A' },
      ],
      buttons: [{ action: 'a', label: 'Go\u001b[8m', value: 'v' }],
    },
    palette(false),
    { typing: false },
  );
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters
  expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  expect(out).toContain('Answer link');
  expect(out).toContain('Austin');
});
