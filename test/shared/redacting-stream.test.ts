import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shortText } from '../../src/providers/model-errors.js';
import { RedactingStream, SecretSet } from '../../src/shared/secrets.js';

const secretsOf = (...values: string[]) => {
  const set = new SecretSet();
  for (const value of values) set.add(value);
  return set;
};

/** `text` cut at the given points (sorted, deduplicated, within the text). */
function cut(text: string, points: number[]): string[] {
  const at = [...new Set(points.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const p of at) {
    pieces.push(text.slice(from, p));
    from = p;
  }
  pieces.push(text.slice(from));
  return pieces;
}

describe('secrets cut between pieces of a stream', () => {
  it('are never passed on, whatever the cuts; text without them comes through unchanged', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== '' && !/[[\]]/.test(s) && !'[redacted]'.includes(s)), fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }), fc.array(fc.nat(80), { maxLength: 6 }), (secret, before, after, points) => {
        const secrets = secretsOf(secret);
        const text = `${before}${secret}${after}`;
        const pieces = cut(text, points);
        const stream = new RedactingStream(secrets);
        const streamed = pieces.map((p) => stream.push(p)).join('') + stream.end();
        expect(streamed).not.toContain(secret);
        expect(streamed).toBe(secrets.redact(text));
        const joined = secrets.redactPieces(pieces).join('');
        expect(joined).not.toContain(secret);
        expect(joined).toBe(secrets.redact(text));
      }),
    );
  });

  it('leaves pieces without secrets as they are', () => {
    const secrets = secretsOf('s3cr3tTOKEN');
    const pieces = ['The token i', 's s3cr3tTOK', 'EN ok', ' and more'];
    expect(secrets.redactPieces(pieces)).toEqual(['The token i', 's [redacted]', ' ok', ' and more']);
    const stream = new RedactingStream(new SecretSet());
    expect(stream.push('abc')).toBe('abc');
  });
});

describe('an API error body in a message', () => {
  it('is one short line without markup', () => {
    const page = `<html><head><style>body{}</style><script>alert(1)</script></head><body><h1>502 Bad Gateway</h1>${'<p>filler</p>'.repeat(2000)}</body></html>`;
    const text = shortText(page);
    expect(text.startsWith('502 Bad Gateway filler')).toBe(true);
    expect(text.length).toBeLessThanOrEqual(300);
    expect(text).not.toMatch(/[<>]/);
    expect(shortText('rate limited')).toBe('rate limited');
  });
});
