import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SecretSet } from '../../src/shared/secrets.js';

const forms = (secret: string) => [
  secret,
  JSON.stringify(secret).slice(1, -1),
  encodeURIComponent(secret),
  Buffer.from(secret).toString('base64'),
  Buffer.from(secret).toString('base64url'),
];

describe('SecretSet redacts every value in every encoding [fuzz]', () => {
  it('leaves no form of any secret, whatever surrounds it', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 24, unit: 'grapheme' }), { minLength: 1, maxLength: 3 }), fc.string(), fc.string(), fc.nat(4), (secrets, before, after, pick) => {
        const set = new SecretSet();
        for (const secret of secrets) set.add(secret);
        for (const secret of secrets) {
          const form = forms(secret)[pick]!;
          const out = set.redact(`${before}${form}${after}`).split('[redacted]').join('\u0000');
          // The marker itself may contain a tiny secret ("e"); what is left outside it may not hold the form.
          if (`${before}${after}`.includes(form)) continue;
          expect(out.includes(form) && !'[redacted]'.includes(form)).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('redacts secrets of any length, even one character', () => {
    const set = new SecretSet();
    set.add('7');
    expect(set.redact('pin 7, not 8')).toBe('pin [redacted], not 8');
  });

  it('knows the longest form, for readers that cut output at a limit', () => {
    const set = new SecretSet();
    set.add('abc');
    expect(set.maxLength).toBeGreaterThanOrEqual(4); // base64 "YWJj" is as long as the secret plus one
  });
});

describe('SecretSet.redactValue (a tool list from a server)', () => {
  it('redacts every string and key at any depth, keeps untouched parts as they were, keeps __proto__ a plain key', () => {
    const secrets = new SecretSet();
    secrets.add('hunter2');
    const clean = { type: 'string' };
    const value = JSON.parse('{"title":"key hunter2","schema":{"properties":{"hunter2":{"enum":["a","hunter2"],"default":"aHVudGVyMg=="}},"__proto__":{"x":"hunter2"},"clean":{"type":"string"}}}');
    value.schema.clean = clean;
    const out = secrets.redactValue(value);
    expect(JSON.stringify(out)).not.toMatch(/hunter2|aHVudGVyMg/);
    expect(out.schema.properties['[redacted]'].enum).toEqual(['a', '[redacted]']);
    expect(out.schema.clean).toBe(clean);
    expect(Object.getPrototypeOf(out.schema)).toBe(Object.prototype);
    expect(Object.keys(out.schema)).toContain('__proto__');
    const untouched = { a: [1, 'b', { c: null }] };
    expect(secrets.redactValue(untouched)).toBe(untouched);
  });
});
