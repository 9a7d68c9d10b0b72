import { format } from 'node:util';
import { plainText } from '../shared/plain-text.js';
import { processSecrets } from '../shared/secrets.js';

/**
 * What the provider SDKs' modules (openai, @anthropic-ai/sdk) find under the name `console`:
 * scripts/build-cli.mjs (`sdkGlobals`) imports it into each of their modules that names one, in
 * both of toolman's bundles. The SDKs print what a reply carried when they cannot parse it
 * (openai 6.49 core/streaming.mjs: `Could not parse message into JSON:` and the raw event, through
 * their logger, which is `console` by default, or through `console` itself for `thread.*`
 * events): from a hostile recording or server that was a terminal escape written as it came (a
 * window title, a clipboard write by OSC 52, a cleared screen). The same lines, as plain text, go
 * through the global console at the time of the call (ink's, in the REPL), with the secrets the
 * process knows outside any catalog taken out (`processSecrets`: the API keys toolman read, bearer
 * tokens; a proxy that echoes the request's Authorization header into a reply the SDK then prints).
 * A catalog's secrets are a conversation's, which a module-wide console cannot know.
 */
export const console: Console = Object.create(globalThis.console, {
  error: { value: plainWriter('error') },
  warn: { value: plainWriter('warn') },
  log: { value: plainWriter('log') },
  info: { value: plainWriter('info') },
  debug: { value: plainWriter('debug') },
  trace: { value: plainWriter('trace') },
}) as Console;

function plainWriter(method: 'error' | 'warn' | 'log' | 'info' | 'debug' | 'trace'): (...args: unknown[]) => void {
  return (...args) => globalThis.console[method](processSecrets.redact(plainText(format(...args))));
}
