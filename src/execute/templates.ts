import type { SecretSet } from '../shared/secrets.js';

/** `{{name}}`, `{{args.name}}`, `{{args}}` and nested `{{args.a.b}}` in handler templates. */
const TEMPLATE = /\{\{\s*([^}]+?)\s*\}\}/g;
/** A template or a `${env:NAME}` secret, filled in one pass so neither is ever expanded inside the other's value. */
const TEMPLATE_OR_SECRET = /\{\{\s*([^}]+?)\s*\}\}|\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `args` is the whole argument object; `args.x` and `x` a parameter; own properties only (never `constructor`). */
function lookup(args: Record<string, unknown>, path: string): unknown {
  if (path === 'args') return args;
  let value: unknown = args;
  for (const key of path.replace(/^args\./, '').split('.')) value = value !== null && typeof value === 'object' && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

const asText = (value: unknown) => (value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value));

/** The parameter a template names (`{{args.ref}}` and `{{ref}}` → `ref`), or undefined for `{{args}}`. */
export function templateParameter(path: string): string | undefined {
  if (path === 'args') return undefined;
  return path.replace(/^args\./, '').split('.')[0];
}

/** The parameters the templates in `text` name. */
export function templateParameters(text: string): string[] {
  return [...text.matchAll(TEMPLATE)].map((m) => templateParameter(m[1]!.trim()) ?? 'args');
}

export function hasTemplate(text: string): boolean {
  return /\{\{\s*[^}]+?\s*\}\}/.test(text);
}

/** Replaces templates in one string; `encode` (e.g. encodeURIComponent) applies to each value. */
export function fillTemplate(text: string, args: Record<string, unknown>, encode: (s: string) => string = (s) => s): string {
  return text.replace(TEMPLATE, (_, path: string) => encode(asText(lookup(args, path))));
}

/**
 * Fills the catalog's own text: `{{param}}` from the arguments (through `encode`) and
 * `${env:NAME}` from the environment, in one pass, so an argument value holding `${env:...}`
 * stays text and a secret's value is never read as a template.
 */
export function fillCatalogText(text: string, args: Record<string, unknown>, env: Record<string, string | undefined>, secrets: SecretSet, encode: (s: string) => string = (s) => s): string {
  return text.replace(TEMPLATE_OR_SECRET, (_, path: string | undefined, name: string | undefined) => {
    if (path !== undefined) return encode(asText(lookup(args, path)));
    const value = env[name!];
    if (value === undefined) throw new Error(`environment variable ${name} is not set`);
    secrets.add(value);
    return value;
  });
}

/**
 * Fills templates through a JSON value. A string that is exactly one template takes the
 * argument's value with its type (`"{{args}}"` is the whole argument object).
 */
export function fillValue(value: unknown, args: Record<string, unknown>): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{\s*([^}]+?)\s*\}\}$/.exec(value);
    return whole ? lookup(args, whole[1]!) : fillTemplate(value, args);
  }
  if (Array.isArray(value)) return value.map((v) => fillValue(v, args));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillValue(v, args)]));
  return value;
}

/**
 * `${env:NAME}` filled through a JSON value's strings (a plugin handler's config), each value a
 * secret from then on; a variable that is not set is an error naming it.
 */
export function fillEnv(value: unknown, env: Record<string, string | undefined>, secrets: SecretSet): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const found = env[name];
      if (found === undefined) throw new Error(`environment variable ${name} is not set`);
      secrets.add(found);
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((v) => fillEnv(v, env, secrets));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillEnv(v, env, secrets)]));
  return value;
}
