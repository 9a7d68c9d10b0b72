import { describe, expect, it } from 'vitest';
import { junitXml } from '../../src/testing/junit-report.js';
import type { RunResult } from '../../src/testing/run-suite.js';

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/**
 * A strict parser for the XML subset JUnit reports use (declaration, comments, elements,
 * attributes in double quotes, text with the five predefined entities). Throws on anything not
 * well-formed: a raw `<` or `&` in text, mismatched tags, an unknown entity, a control character.
 */
function parseXml(text: string): XmlElement {
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`not well-formed at ${i}: ${why}`);
  };
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/.test(text)) fail('a character XML 1.0 forbids');
  const decode = (s: string) => {
    if (/&(?!(amp|lt|gt|quot|apos);)/.test(s)) fail(`bad entity in ${JSON.stringify(s.slice(0, 40))}`);
    if (s.includes('<')) fail('raw < in text');
    return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
  };
  const skipMisc = () => {
    for (;;) {
      while (/\s/.test(text[i] ?? '')) i++;
      if (text.startsWith('<?xml', i)) i = text.indexOf('?>', i) + 2;
      else if (text.startsWith('<!--', i)) {
        const end = text.indexOf('-->', i + 4);
        if (end < 0 || text.slice(i + 4, end).includes('--')) fail('bad comment');
        i = end + 3;
      } else return;
    }
  };
  const element = (): XmlElement => {
    if (text[i] !== '<') fail('expected <');
    const name = /^<([A-Za-z_][\w.-]*)/.exec(text.slice(i))?.[1] ?? fail('bad tag name');
    i += name.length + 1;
    const attributes: Record<string, string> = {};
    for (;;) {
      while (/\s/.test(text[i]!)) i++;
      if (text.startsWith('/>', i)) return (i += 2), { name, attributes, children: [], text: '' };
      if (text[i] === '>') break;
      const m = /^([A-Za-z_][\w.-]*)="([^"]*)"/.exec(text.slice(i)) ?? fail('bad attribute');
      if (m[1]! in attributes) fail(`duplicate attribute ${m[1]}`);
      attributes[m[1]!] = decode(m[2]!);
      i += m[0].length;
    }
    i++;
    const children: XmlElement[] = [];
    let content = '';
    for (;;) {
      const next = text.indexOf('<', i);
      if (next < 0) fail(`unclosed <${name}>`);
      content += decode(text.slice(i, next));
      i = next;
      if (text.startsWith(`</${name}>`, i)) return (i += name.length + 3), { name, attributes, children, text: content };
      if (text.startsWith('</', i)) fail(`mismatched close in <${name}>`);
      if (text.startsWith('<!--', i)) skipMisc();
      else children.push(element());
    }
  };
  skipMisc();
  const root = element();
  skipMisc();
  if (i !== text.length) fail('content after the root element');
  return root;
}

/**
 * The constraints of Ant's JUnit.xsd (the schema Jenkins and most CI reporters follow), checked
 * element by element: required attributes and their types, no undeclared attributes, children
 * in the schema's order and numbers.
 */
function validateJUnit(root: XmlElement): string[] {
  const problems: string[] = [];
  const int = /^-?\d+$/;
  const decimal = /^-?\d+(\.\d+)?$/;
  const attrs = (e: XmlElement, required: Record<string, RegExp>, optional: Record<string, RegExp> = {}) => {
    for (const [name, pattern] of Object.entries(required)) {
      if (!(name in e.attributes)) problems.push(`<${e.name}> lacks ${name}`);
      else if (!pattern.test(e.attributes[name]!)) problems.push(`<${e.name}> ${name}="${e.attributes[name]}" is not valid`);
    }
    for (const [name, value] of Object.entries(e.attributes)) {
      if (!(name in required) && !(name in optional)) problems.push(`<${e.name}> has undeclared attribute ${name}`);
      else if (name in optional && !optional[name]!.test(value)) problems.push(`<${e.name}> ${name} is not valid`);
    }
  };
  if (root.name !== 'testsuites') problems.push(`root is <${root.name}>`);
  attrs(root, {});
  for (const suite of root.children) {
    if (suite.name !== 'testsuite') problems.push(`<testsuites> holds <${suite.name}>`);
    attrs(suite, { name: /\S/, timestamp: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/, hostname: /\S/, tests: int, failures: int, errors: int, time: decimal, package: /[\s\S]*/, id: int });
    const names = suite.children.map((c) => c.name);
    const shape = names.join(' ');
    if (!/^properties( testcase)* system-out system-err$/.test(shape)) problems.push(`<testsuite> children out of order: ${shape}`);
    for (const child of suite.children) {
      if (child.name === 'properties') for (const p of child.children) p.name === 'property' ? attrs(p, { name: /\S/, value: /[\s\S]*/ }) : problems.push(`<properties> holds <${p.name}>`);
      if (child.name === 'testcase') {
        attrs(child, { name: /[\s\S]*/, classname: /[\s\S]*/, time: decimal });
        if (child.children.length > 1) problems.push('<testcase> has more than one of error/failure');
        for (const d of child.children) {
          if (d.name !== 'failure' && d.name !== 'error') problems.push(`<testcase> holds <${d.name}>`);
          attrs(d, { type: /[\s\S]*/ }, { message: /[\s\S]*/ });
        }
      }
    }
    const counted = (kind: string) => suite.children.filter((c) => c.name === 'testcase' && c.children.some((d) => d.name === kind)).length;
    if (Number(suite.attributes.tests) !== names.filter((n) => n === 'testcase').length) problems.push('tests does not count the test cases');
    if (Number(suite.attributes.failures) !== counted('failure')) problems.push('failures does not count the failures');
    if (Number(suite.attributes.errors) !== counted('error')) problems.push('errors does not count the errors');
  }
  return problems;
}

const run = (over: Partial<RunResult>): RunResult => ({
  case: 'c', provider: 'openai:gpt-4o', model: 'gpt-4o', repeat: 1, passed: true, failures: [], error: null, calls: [], answer: '', rounds: 1, stop: 'done',
  usage: { input: 1, output: 1, cached: 0, estimated_input: 1, reported: true, side: [] }, latency_ms: 1234, cost_usd: 0, expected_tools: null, notices: [], recording: null, ...over,
});

describe('JUnit XML', () => {
  const hostile = 'a <b> & "c" \u0007 \uD800 ]]> --';
  const xml = junitXml(
    [
      {
        name: 'assistant',
        results: [
          run({ case: 'passes' }),
          run({ case: hostile, repeat: 2, passed: false, failures: [{ expectation: 'calls[0] x', message: `x was not called; ${hostile}` }] }),
          run({ case: 'errs', passed: false, error: 'HTTP 500', failures: [{ expectation: 'run', message: 'HTTP 500' }] }),
          run({ case: 'other provider', provider: 'anthropic:claude' }),
        ],
      },
    ],
    new Date('2026-11-22T10:00:00.123Z'),
  );

  it('is well-formed and valid against the JUnit schema', () => {
    const root = parseXml(xml);
    expect(validateJUnit(root)).toEqual([]);
    expect(root.children.map((s) => [s.attributes.name, s.attributes.tests, s.attributes.failures, s.attributes.errors])).toEqual([
      ['assistant (openai:gpt-4o)', '3', '1', '1'],
      ['assistant (anthropic:claude)', '1', '0', '0'],
    ]);
    const failing = root.children[0]!.children.find((c) => c.name === 'testcase' && c.children[0]?.name === 'failure')!;
    expect(failing.attributes.name).toBe('a <b> & "c" \uFFFD \uFFFD ]]> -- #2');
    expect(failing.attributes.time).toBe('1.234');
    expect(failing.children[0]!.text).toContain('calls[0] x: x was not called');
  });

  it('the checker catches a report that breaks the schema', () => {
    expect(() => parseXml(xml.replace('&amp;', '&'))).toThrow(/bad entity/);
    expect(validateJUnit(parseXml(xml.replace('<testsuites>', '<testsuites tests="4">')))).toContain('<testsuites> has undeclared attribute tests');
    expect(validateJUnit(parseXml(xml.replace(/ hostname="localhost"/, '')))).toContain('<testsuite> lacks hostname');
    expect(validateJUnit(parseXml(xml.replace(/<system-out><\/system-out>/, '')))[0]).toMatch(/children out of order/);
  });
});
