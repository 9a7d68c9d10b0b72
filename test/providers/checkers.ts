/**
 * Independent checks of what each provider's API accepts, written from the providers' docs
 * (docs/providers.md), not from toolman's converters. Each returns a list of violations.
 */
type Node = Record<string, unknown>;
const isRecord = (v: unknown): v is Node => v !== null && typeof v === 'object' && !Array.isArray(v);

function* schemaNodes(schema: unknown, path = '#'): Generator<{ node: Node; path: string }> {
  if (!isRecord(schema)) return;
  yield { node: schema, path };
  if (isRecord(schema.properties)) for (const [k, v] of Object.entries(schema.properties)) yield* schemaNodes(v, `${path}/properties/${k}`);
  if (isRecord(schema.items)) yield* schemaNodes(schema.items, `${path}/items`);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) if (Array.isArray(schema[key])) for (const [i, s] of (schema[key] as unknown[]).entries()) yield* schemaNodes(s, `${path}/${key}/${i}`);
  for (const key of ['$defs', 'definitions']) if (isRecord(schema[key])) for (const [k, v] of Object.entries(schema[key] as Node)) yield* schemaNodes(v, `${path}/${key}/${k}`);
  if (isRecord(schema.additionalProperties)) yield* schemaNodes(schema.additionalProperties, `${path}/additionalProperties`);
}

const OPENAI_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
// OpenAI Structured Outputs, "Supported schemas".
const OPENAI_STRICT_KEYS = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf', '$ref', '$defs', 'definitions', 'description', 'title', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems']);
const OPENAI_STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

/** `items: false` is not a schema any provider takes (OpenAI, Anthropic: JSON Schema objects; Gemini: a Schema). */
function checkNoFalseItems(name: string, schema: unknown, out: string[]): void {
  for (const { node, path } of schemaNodes(schema)) if (node.items === false) out.push(`${name} ${path}: items: false is not a schema`);
}

/** Strict modes close every object: two closed object parts of one allOf accept only {}. */
function checkClosedAllOf(name: string, schema: unknown, out: string[]): void {
  for (const { node, path } of schemaNodes(schema)) {
    if (Array.isArray(node.allOf) && node.allOf.filter((b) => isRecord(b) && b.additionalProperties === false).length > 1) out.push(`${name} ${path}: allOf of closed objects accepts only {}`);
  }
}

function checkOpenAiSchema(name: string, schema: unknown, strict: boolean, out: string[]): void {
  if (!isRecord(schema) || schema.type !== 'object') out.push(`${name}: parameters root must be type object`);
  checkNoFalseItems(name, schema, out);
  if (!strict) return;
  checkClosedAllOf(name, schema, out);
  if (isRecord(schema) && (schema.anyOf || schema.oneOf)) out.push(`${name}: strict root must not be a union`);
  let depth = 0;
  for (const { node, path } of schemaNodes(schema)) {
    depth = Math.max(depth, path.split('/properties/').length);
    for (const key of Object.keys(node)) if (!OPENAI_STRICT_KEYS.has(key)) out.push(`${name} ${path}: "${key}" is not allowed in strict mode`);
    if (typeof node.format === 'string' && !OPENAI_STRICT_FORMATS.has(node.format)) out.push(`${name} ${path}: format ${node.format} not allowed in strict mode`);
    const isObject = node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'));
    if (isObject) {
      if (node.additionalProperties !== false) out.push(`${name} ${path}: strict objects need additionalProperties: false`);
      const props = Object.keys(isRecord(node.properties) ? node.properties : {});
      const required = Array.isArray(node.required) ? node.required : [];
      if (props.some((p) => !required.includes(p))) out.push(`${name} ${path}: strict objects must require every property`);
    }
    if (!('type' in node) && !('anyOf' in node) && !('$ref' in node) && !('enum' in node) && !('const' in node)) out.push(`${name} ${path}: strict schemas need a type`);
  }
  if (depth > 10) out.push(`${name}: nesting over 10 levels`);
}

export function checkOpenAiChat(payload: Node): string[] {
  const out: string[] = [];
  const tools = (payload.tools as Node[] | undefined) ?? [];
  for (const tool of tools) {
    if (tool.type !== 'function') continue; // provider-native tools pass through
    const fn = tool.function as Node | undefined;
    if (!isRecord(fn)) {
      out.push('a function tool without "function"');
      continue;
    }
    const name = String(fn.name);
    if (!OPENAI_NAME.test(name)) out.push(`${name}: invalid function name`);
    if ('defer_loading' in tool) out.push(`${name}: Chat Completions has no defer_loading`);
    checkOpenAiSchema(name, fn.parameters, fn.strict === true, out);
  }
  const names = tools.map((t) => (isRecord(t.function) ? t.function.name : undefined));
  if (new Set(names).size !== names.length) out.push('duplicate function names');
  const choice = payload.tool_choice as Node | string | undefined;
  if (isRecord(choice)) {
    if (choice.type === 'function' && !names.includes((choice.function as Node)?.name)) out.push('tool_choice names a function that is not sent');
    if (choice.type === 'allowed_tools' && !isRecord(choice.allowed_tools)) out.push('allowed_tools needs an allowed_tools object');
  }
  if (tools.length > 128) out.push(`${tools.length} tools, over 128`);
  return out;
}

export function checkOpenAiResponses(payload: Node): string[] {
  const out: string[] = [];
  const tools = (payload.tools as Node[] | undefined) ?? [];
  const deferred = tools.filter((t) => t.defer_loading === true);
  for (const tool of tools) {
    if (tool.type !== 'function') continue;
    const name = String(tool.name);
    if (!OPENAI_NAME.test(name)) out.push(`${name}: invalid function name`);
    if ('function' in tool) out.push(`${name}: Responses tools are flat (no "function" wrapper)`);
    checkOpenAiSchema(name, tool.parameters, tool.strict === true, out);
  }
  if (deferred.length && !tools.some((t) => t.type === 'tool_search')) out.push('deferred functions need a tool_search tool');
  return out;
}

// Anthropic tool use and structured outputs docs ("JSON Schema limitations", read 2026-11-22):
// no numeric or string-length constraints, no array constraints beyond minItems 0 or 1, allOf only
// without $ref, no recursion, enums of primitives, a fixed list of string formats.
const ANTHROPIC_STRICT_FORBIDDEN = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'maxItems', 'uniqueItems', 'contains', 'oneOf', 'not', 'if', 'then', 'else', 'patternProperties'];
const ANTHROPIC_STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']);
export function checkAnthropic(payload: Node): string[] {
  const out: string[] = [];
  const tools = (payload.tools as Node[] | undefined) ?? [];
  let strictTools = 0;
  let optional = 0;
  let unions = 0;
  tools.forEach((tool) => {
    if (typeof tool.type === 'string' && tool.type.startsWith('tool_search_tool_')) {
      if (tool.defer_loading === true) out.push('the tool search tool must not be deferred');
      return;
    }
    if (typeof tool.type === 'string') return; // other server tools pass through
    const name = String(tool.name);
    if (!OPENAI_NAME.test(name)) out.push(`${name}: invalid tool name`);
    const schema = tool.input_schema as Node | undefined;
    if (!isRecord(schema) || schema.type !== 'object') out.push(`${name}: input_schema root must be type object`);
    checkNoFalseItems(name, schema, out);
    if (tool.strict === true) {
      checkClosedAllOf(name, schema, out);
      strictTools++;
      for (const { node, path } of schemaNodes(schema)) {
        for (const key of ANTHROPIC_STRICT_FORBIDDEN) if (key in node) out.push(`${name} ${path}: ${key} not supported with strict`);
        if (typeof node.minItems === 'number' && node.minItems > 1) out.push(`${name} ${path}: minItems above 1 not supported with strict`);
        if (Array.isArray(node.allOf) && JSON.stringify(node.allOf).includes('"$ref"')) out.push(`${name} ${path}: allOf with $ref not supported with strict`);
        if (typeof node.format === 'string' && !ANTHROPIC_STRICT_FORMATS.has(node.format)) out.push(`${name} ${path}: format ${node.format} not supported with strict`);
        if (Array.isArray(node.enum) && node.enum.some((v) => v !== null && typeof v === 'object')) out.push(`${name} ${path}: enums of objects or arrays not supported with strict`);
        if (typeof node.$ref === 'string' && (node.$ref === '#' || path.slice(1).startsWith(node.$ref.slice(1)))) out.push(`${name} ${path}: recursive $ref not supported with strict`);
        if ((node.type === 'object' || isRecord(node.properties)) && node.additionalProperties !== false) out.push(`${name} ${path}: strict objects need additionalProperties: false`);
        if (isRecord(node.properties)) optional += Object.keys(node.properties).filter((p) => !(Array.isArray(node.required) && node.required.includes(p))).length;
        if (Array.isArray(node.anyOf) || (Array.isArray(node.type) && node.type.length > 1)) unions++;
      }
    }
    if (Array.isArray(tool.input_examples)) for (const example of tool.input_examples) if (!isRecord(example)) out.push(`${name}: input_examples must be objects`);
  });
  if (strictTools > 20) out.push(`${strictTools} strict tools, over 20`);
  if (optional > 24) out.push(`${optional} optional parameters in strict tools, over 24`);
  if (unions > 16) out.push(`${unions} union parameters in strict tools, over 16`);
  if (tools.some((t) => t.defer_loading === true)) {
    if (!tools.some((t) => typeof t.type === 'string' && t.type.startsWith('tool_search_tool_'))) out.push('deferred tools need a tool search tool');
    if (tools.every((t) => t.defer_loading === true)) out.push('at least one tool must stay loaded');
    // API error: "Tool '…' cannot have both defer_loading=true and cache_control set."
    for (const t of tools) if (t.defer_loading === true && t.cache_control) out.push(`${String(t.name)}: a deferred tool cannot have cache_control`);
  }
  const choice = payload.tool_choice as Node | undefined;
  if (isRecord(choice) && choice.type === 'tool' && !tools.some((t) => t.name === choice.name)) out.push('tool_choice names a tool that is not sent');
  return out;
}

// Gemini API reference, "Schema" (OpenAPI 3.0 subset) and "FunctionDeclaration"; the @google/genai
// Schema type (read 2026-11-22) also has `default` and `example`, and types its int64 fields
// (minItems, maxItems, minLength, maxLength, minProperties, maxProperties) as strings.
const GEMINI_KEYS = new Set(['type', 'format', 'title', 'description', 'nullable', 'enum', 'items', 'properties', 'required', 'minItems', 'maxItems', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'anyOf', 'minProperties', 'maxProperties', 'propertyOrdering', 'default', 'example']);
const GEMINI_INT64 = ['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties'];
const GEMINI_TYPES = new Set(['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL']);
const GEMINI_FORMATS: Record<string, string[]> = { STRING: ['enum', 'date-time'], NUMBER: ['float', 'double'], INTEGER: ['int32', 'int64'] };
export function checkGemini(payload: Node): string[] {
  const out: string[] = [];
  const tools = (payload.tools as Node[] | undefined) ?? [];
  const declarations = tools.flatMap((t) => (Array.isArray(t.functionDeclarations) ? (t.functionDeclarations as Node[]) : []));
  for (const declaration of declarations) {
    const name = String(declaration.name);
    if (!/^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/.test(name)) out.push(`${name}: Gemini names start with a letter or _ (64 characters at most)`);
    if (declaration.parametersJsonSchema !== undefined) {
      checkNoFalseItems(name, declaration.parametersJsonSchema, out);
      continue;
    }
    for (const { node, path } of schemaNodes(declaration.parameters)) {
      // API error (lobehub#5002, browser-use#7): "properties: should be non-empty for OBJECT type";
      // in the API's proto an absent map and an empty one are the same.
      if (node.type === 'OBJECT' && !(isRecord(node.properties) && Object.keys(node.properties).length > 0)) out.push(`${name} ${path}: properties should be non-empty for OBJECT type`);
      if (Array.isArray(node.anyOf)) {
        if (Object.keys(node).length !== 1) out.push(`${name} ${path}: anyOf must be alone on its node`);
        continue;
      }
      for (const key of Object.keys(node)) if (!GEMINI_KEYS.has(key)) out.push(`${name} ${path}: "${key}" is not a Gemini schema field`);
      for (const key of GEMINI_INT64) if (key in node && !/^\d+$/.test(String(node[key])) ) out.push(`${name} ${path}: ${key} must be a whole number`);
      if (isRecord(node.properties)) for (const key of Object.keys(node.properties)) if (!/^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/.test(key)) out.push(`${name} ${path}: parameter name "${key}" is not accepted`);
      if (typeof node.type !== 'string' || !GEMINI_TYPES.has(node.type)) out.push(`${name} ${path}: every node needs a Gemini type`);
      if (Array.isArray(node.enum) && (node.type !== 'STRING' || node.enum.some((v) => typeof v !== 'string'))) out.push(`${name} ${path}: enums are strings`);
      if ('items' in node && !isRecord(node.items)) out.push(`${name} ${path}: items must be a Schema`);
      if (typeof node.format === 'string' && !(GEMINI_FORMATS[String(node.type)] ?? []).includes(node.format)) out.push(`${name} ${path}: format ${node.format} not accepted for ${String(node.type)}`);
    }
  }
  if (declarations.length > 512) out.push(`${declarations.length} declarations, over 512`);
  return out;
}

export const CHECKERS = { openai: checkOpenAiChat, 'openai-responses': checkOpenAiResponses, anthropic: checkAnthropic, gemini: checkGemini } as const;
