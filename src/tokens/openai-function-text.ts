import type { JsonSchema } from '../catalog/types.js';
import { isRecord } from '../shared/is-record.js';

/**
 * How OpenAI's chat models see function definitions: a TypeScript-like namespace in the system
 * prompt. The layout follows the rules published (and checked against the API's prompt_tokens on
 * gpt-3.5-turbo) by hmarr/openai-chat-tokens (MIT; see docs/providers.md): a `// description`
 * line, then `type name = (_: { ... }) => any;` or `type name = () => any;` with no properties,
 * one `name?: type,` line per property (`?` when optional), property descriptions as `//` lines
 * on the top two levels, enums as unions of literals, nested objects in braces, arrays as `T[]`.
 */
export interface FunctionLike {
  name: string;
  description?: string;
  parameters?: JsonSchema;
}

export function functionNamespaceText(functions: readonly FunctionLike[]): string {
  const lines = ['namespace functions {', ''];
  for (const fn of functions) {
    if (fn.description) lines.push(`// ${fn.description}`);
    const properties = isRecord(fn.parameters?.properties) ? fn.parameters.properties : undefined;
    if (properties && Object.keys(properties).length > 0) {
      lines.push(`type ${fn.name} = (_: {`);
      lines.push(objectText(fn.parameters!, 0));
      lines.push('}) => any;');
    } else {
      lines.push(`type ${fn.name} = () => any;`);
    }
    lines.push('');
  }
  lines.push('} // namespace functions');
  return lines.join('\n');
}

function objectText(schema: JsonSchema, indent: number): string {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const lines: string[] = [];
  for (const [name, raw] of Object.entries(properties)) {
    const property = isRecord(raw) ? raw : {};
    if (typeof property.description === 'string' && indent < 2) lines.push(`// ${property.description}`);
    lines.push(`${name}${required.has(name) ? '' : '?'}: ${typeText(property, indent)},`);
  }
  return lines.map((line) => ' '.repeat(indent) + line).join('\n');
}

/** A schema as a TypeScript type; anything it cannot say is `any` (`const` is not shown: the measured counts say so). */
export function typeText(schema: JsonSchema, indent: number): string {
  if (Array.isArray(schema.anyOf)) return schema.anyOf.map((branch) => typeText(isRecord(branch) ? branch : {}, indent)).join(' | ');
  switch (schema.type) {
    case 'string':
      return Array.isArray(schema.enum) ? schema.enum.map((v) => JSON.stringify(v)).join(' | ') : 'string';
    case 'number':
    case 'integer':
      return Array.isArray(schema.enum) ? schema.enum.map((v) => String(v)).join(' | ') : 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'object':
      return ['{', objectText(schema, indent + 2), '}'].join('\n');
    case 'array':
      return isRecord(schema.items) ? `${typeText(schema.items, indent)}[]` : 'any[]';
    default:
      return Array.isArray(schema.enum) ? schema.enum.map((v) => JSON.stringify(v)).join(' | ') : 'any';
  }
}
