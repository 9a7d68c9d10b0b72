import { describe, expect, it } from 'vitest';
import { renderCallResult } from '../../src/mcp/call-result.js';
import { StructuredResult } from '../../src/execute/structured-result.js';

const text = (t: string) => ({ type: 'text', text: t });

describe('renderCallResult: each part of a tools/call result once', () => {
  it('text blocks alone are the text', () => {
    expect(renderCallResult({ content: [text('a'), text('b')] })).toBe('a\n\nb');
  });

  it('structured content restated as its JSON (the spec\'s SHOULD, spaced or not) is sent once, as the JSON', () => {
    const structured = { temperature: 22.5, conditions: 'Partly cloudy', humidity: 65 };
    const result = renderCallResult({ content: [text('{"temperature": 22.5, "conditions": "Partly cloudy", "humidity": 65}')], structuredContent: structured });
    expect(result).toBeInstanceOf(StructuredResult);
    expect(result).toEqual(new StructuredResult(structured, structured));
  });

  it('structured content whose strings the text carries (the filesystem server\'s {content}) is sent as the text alone', () => {
    const body = 'line 1\nline 2';
    const result = renderCallResult({ content: [text(body)], structuredContent: { content: body } }) as StructuredResult;
    expect(result.value).toBe(body);
    expect(result.structuredContent).toEqual({ content: body });
  });

  it('structured content restating media blocks does not send their data to the model', () => {
    const image = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' };
    const result = renderCallResult({ content: [image], structuredContent: { content: [image] } }) as StructuredResult;
    expect(result.value).toBe('[image image/png, 8 bytes]');
  });

  it('numbers and booleans are never taken as carried by text; the model then gets both', () => {
    const result = renderCallResult({ content: [text('It is sunny and 22 degrees.')], structuredContent: { conditions: 'sunny', temperature: 22 } }) as StructuredResult;
    expect(result.value).toEqual({ structured: { conditions: 'sunny', temperature: 22 }, content: 'It is sunny and 22 degrees.' });
  });

  it('a string the text does not hold means the text says something else: both', () => {
    const result = renderCallResult({ content: [text('Done.')], structuredContent: { id: 'evt_9' } }) as StructuredResult;
    expect(result.value).toEqual({ structured: { id: 'evt_9' }, content: 'Done.' });
  });

  it('structured content without blocks is the result; past 1,000 values nothing is dropped', () => {
    expect((renderCallResult({ content: [], structuredContent: { a: 1 } }) as StructuredResult).value).toEqual({ a: 1 });
    const many = Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`k${i}`, `v${i}`]));
    const all = Object.values(many).join(' ');
    const result = renderCallResult({ content: [text(all)], structuredContent: many }) as StructuredResult;
    expect(result.value).toEqual({ structured: many, content: all });
  });
});
