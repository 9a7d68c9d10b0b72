import type { JsonSchema } from '../../catalog/types.js';
import type { Palette } from '../color.js';

/** One-line type label of a schema node: `string (date-time)`, `array of string`, `"a" | "b"`. */
export function typeLabel(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if ('const' in schema) return `= ${JSON.stringify(schema.const)}`;
  if (typeof schema.$ref === 'string') return `→ ${schema.$ref}`;
  const unions = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(unions)) return unions.map((s) => typeLabel(s ?? {})).join(' | ');
  let type = Array.isArray(schema.type) ? schema.type.join(' | ') : typeof schema.type === 'string' ? schema.type : 'any';
  if (type === 'array' && schema.items && typeof schema.items === 'object' && !Array.isArray(schema.items)) type = `array of ${typeLabel(schema.items as JsonSchema)}`;
  if (typeof schema.format === 'string') type += ` (${schema.format})`;
  return type;
}

/** The parameters as an indented tree: name, type, required, default and description. */
export function renderSchemaTree(schema: JsonSchema, c: Palette): string[] {
  const lines: string[] = [];
  const walk = (node: JsonSchema, prefix: string, depth: number) => {
    const properties = (node.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    const names = Object.keys(properties);
    names.forEach((name, i) => {
      const prop = properties[name] ?? {};
      const last = i === names.length - 1;
      const notes = [required.has(name) ? c.bold('required') : '', 'default' in prop ? `default ${JSON.stringify(prop.default)}` : ''].filter(Boolean).join(', ');
      const description = typeof prop.description === 'string' ? ` ${c.dim('— ' + prop.description.split('\n')[0])}` : '';
      lines.push(`${prefix}${last ? '└─ ' : '├─ '}${c.cyan(name)} ${typeLabel(prop)}${notes ? ` [${notes}]` : ''}${description}`);
      const child = prop.type === 'array' && prop.items && typeof prop.items === 'object' ? (prop.items as JsonSchema) : prop;
      if (child.properties && depth < 8) walk(child, prefix + (last ? '   ' : '│  '), depth + 1);
    });
  };
  walk(schema, '', 0);
  if (lines.length === 0) lines.push(c.dim('(no parameters)'));
  return lines;
}
