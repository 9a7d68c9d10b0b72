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
    default:
      return `${keyword}: ${JSON.stringify(value)}`;
  }
}
