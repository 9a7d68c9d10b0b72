import { isRecord } from '../shared/is-record.js';

/**
 * A constraint a provider cannot express, in words for the model (restated in the description
 * when the keyword is removed): "at least 1", "at most 100 characters", "format: date".
 * Words read better to a model than raw JSON keywords; anything without a phrasing here is shown
 * as `keyword: value`.
 */
export function restate(keyword: string, value: unknown): string {
  const v = typeof value === 'string' ? value : JSON.stringify(value);
  switch (keyword) {
    case 'minimum':
      return `at least ${v}`;
    case 'maximum':
      return `at most ${v}`;
    case 'exclusiveMinimum':
      return `greater than ${v}`;
    case 'exclusiveMaximum':
      return `less than ${v}`;
    case 'multipleOf':
      return `a multiple of ${v}`;
    case 'minLength':
      return `at least ${v} character${value === 1 ? '' : 's'}`;
    case 'maxLength':
      return `at most ${v} character${value === 1 ? '' : 's'}`;
    case 'minItems':
      return `at least ${v} item${value === 1 ? '' : 's'}`;
    case 'maxItems':
      return `at most ${v} item${value === 1 ? '' : 's'}`;
    case 'uniqueItems':
      return value === true ? 'no repeated items' : `uniqueItems: ${v}`;
    case 'minProperties':
      return `at least ${v} key${value === 1 ? '' : 's'}`;
    case 'maxProperties':
      return `at most ${v} key${value === 1 ? '' : 's'}`;
    case 'pattern':
      return `matching the pattern ${v}`;
    case 'format':
      return `format: ${v}`;
    case 'default':
      return `default: ${JSON.stringify(value)}`;
    case 'examples':
      return `for example ${Array.isArray(value) ? value.map((e) => JSON.stringify(e)).join(', ') : v}`;
    case 'const':
      return `always ${JSON.stringify(value)}`;
    case 'prefixItems':
      return Array.isArray(value) ? `items in order: ${value.map(describeValue).join(', then ')}` : `prefixItems: ${v}`;
    default:
      return `${keyword}: ${JSON.stringify(value)}`;
  }
}

const TYPE_WORDS: Record<string, string> = { string: 'a string', integer: 'an integer', number: 'a number', boolean: 'a boolean', object: 'an object', array: 'an array', null: 'null' };

/**
 * What a schema accepts, in a few words for a model ("a string", "an integer or null", "one of
 * \"a\", \"b\""): used where a provider cannot take the schema's structure and the words carry it
 * (a tuple's positions).
 */
export function describeValue(schema: unknown): string {
  if (schema === true) return 'any value';
  if (!isRecord(schema)) return schema === false ? 'nothing' : 'any value';
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (branches) return branches.map(describeValue).join(' or ');
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === 'string') : [];
  if (types.length) return types.map((t) => TYPE_WORDS[t] ?? t).join(' or ');
  if (isRecord(schema.properties)) return 'an object';
  if (schema.items !== undefined || Array.isArray(schema.prefixItems)) return 'an array';
  if (typeof schema.$ref === 'string') return `a ${schema.$ref.split('/').pop() || 'value'}`;
  return 'any value';
}
