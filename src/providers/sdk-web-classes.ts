import { Headers, taggedAs } from '../shared/fetch-headers.js';

/**
 * What the provider SDKs' modules (openai, @anthropic-ai/sdk) find under the names `Headers` and
 * `FormData` instead of Node's globals: scripts/build-cli.mjs (`sdkGlobals`) imports these
 * into each of their modules that names one, in both of toolman's bundles. On Node 20 the first
 * touch of either global loads all of Node's fetch (about 17 ms of CPU), and the SDKs touch both
 * for every request, whatever fetch they are given: building its headers, and asking whether the
 * body is a FormData. A replayed run never needs Node's fetch; a live one loads it when it sends.
 */
export { Headers };

/**
 * `FormData` for the SDKs: constructing one gives Node's own (only a file upload builds one, and
 * sends it with Node's fetch anyway); `instanceof` answers as Node's class would, asking it only
 * about what says it is a FormData, so a JSON body never loads Node's fetch.
 */
export class FormData {
  constructor(...args: unknown[]) {
    return new (globalThis.FormData as unknown as new (...a: unknown[]) => FormData)(...args);
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return taggedAs(value, 'FormData') && value instanceof globalThis.FormData;
  }
}
