import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import { ajvLinearRegExp } from '../shared/linear-regexp.js';
import { inPlaceSchemas, MAX_IN_PLACE_SCHEMAS } from './json-schema.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = (addFormatsModule as unknown as { default: typeof addFormatsModule.default }).default;
export type AjvInstance = Ajv2020;

/**
 * An ajv for draft 2020-12 with the standard formats, which refuses to compile a schema that could
 * take exponential time to check a value against (see `inPlaceSchemas`): every compile in toolman
 * (validate's checks, examples, a call's arguments, suites' matchers) goes through here.
 */
export function createAjv(options: Options = {}): AjvInstance {
  // ownProperties: a property named `constructor` or `toString` is looked up on the value itself, not its prototype.
  // Patterns run on RE2, in linear time: a pattern can never make validation hang.
  const ajv = new Ajv2020({ strict: true, ownProperties: true, ...options, code: { regExp: ajvLinearRegExp, ...options.code } });
  addFormats(ajv);
  // MCP 2026-07-28 marks a parameter to mirror into an `Mcp-Param-{Name}` header with `x-mcp-header`
  // (server/tools.mdx): an annotation, with no effect on what validates, that strict mode must not refuse.
  ajv.addKeyword({ keyword: 'x-mcp-header', schemaType: 'string' });
  const compile = ajv.compile.bind(ajv);
  ajv.compile = ((schema: object, meta?: boolean) => {
    const { count, path } = inPlaceSchemas(schema);
    if (count > MAX_IN_PLACE_SCHEMAS) {
      const at = `#${path.map((p) => `/${encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('')}`;
      throw new Error(
        `${count === Infinity ? 'references that loop back to the same value' : `${count} subschemas applied to one value (unions of references to the same definitions)`} at "${at}": checking a value could take exponential time, so toolman does not compile this schema`,
      );
    }
    return compile(schema, meta);
  }) as typeof ajv.compile;
  return ajv;
}

