import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import { ajvLinearRegExp } from '../shared/linear-regexp.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = (addFormatsModule as unknown as { default: typeof addFormatsModule.default }).default;
export type AjvInstance = Ajv2020;

/** An ajv for draft 2020-12 with the standard formats. */
export function createAjv(options: Options = {}): AjvInstance {
  // ownProperties: a property named `constructor` or `toString` is looked up on the value itself, not its prototype.
  // Patterns run on RE2, in linear time: a pattern can never make validation hang.
  const ajv = new Ajv2020({ strict: true, ownProperties: true, ...options, code: { regExp: ajvLinearRegExp, ...options.code } });
  addFormats(ajv);
  return ajv;
}

