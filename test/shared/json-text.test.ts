import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src/shared/json-text.js';

const reason = (text: string) => {
  try {
    parseJsonText(text, 'the file');
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('parsed');
};

describe('parseJsonText', () => {
  it('never quotes the text back, short or long (a file pointed at by mistake may hold a key)', () => {
    // A line break within the quote's ten characters too: `"sk\nSECRET"` once left `"sk` in the reason.
    for (const text of ['sk-live-abcdefghijklmnopqrstuvwxyz0123456789', 'sk', '{"a": sk-live-abcdefghijklmnopqrstuvwxyz}', 'sk-live-0123456789abcdef\n{"x": 1}', 'sk-live\nABCDEFGH', 'sk\nSECRET', 'sk\r\nSECRET']) {
      const message = reason(text);
      expect(message).toMatch(/^the file is not valid JSON: unexpected token 's'/);
      expect(message).not.toContain('sk-live');
      expect(message).not.toContain('"sk');
    }
  });

  it('quotes nothing of a text that is only a word JavaScript knows and JSON does not', () => {
    for (const text of ['NaN', 'Infinity', 'undefined']) expect(reason(text)).toBe('the file is not valid JSON: not a JSON value');
  });

  it('shows a control character in the reason as a visible escape, never the raw byte', () => {
    const message = reason('\u001b]0;PWNED\u0007');
    expect(message).not.toMatch(/[\u0000-\u001f]/);
    expect(message).toContain("unexpected token '\\u001b'");
    expect(message).not.toContain('PWNED');
  });

  it('keeps the position the parser gives, and skips a byte-order mark', () => {
    expect(reason('{"a": 1,}')).toMatch(/position 8|line 1 column 9/);
    expect(parseJsonText('\uFEFF{"a": 1}', 'x')).toEqual({ a: 1 });
  });
});
