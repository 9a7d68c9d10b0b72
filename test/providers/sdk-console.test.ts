import { afterEach, describe, expect, it, vi } from 'vitest';
import { console as sdkConsole } from '../../src/providers/sdk-console.js';
import { processSecrets } from '../../src/shared/secrets.js';

// What the provider SDKs print (they get this `console` in toolman's bundles, scripts/build-cli.mjs).
describe('the console the provider SDKs print through', () => {
  afterEach(() => vi.restoreAllMocks());

  it('prints through the global console at the time of the call, as plain text', () => {
    const error = vi.spyOn(globalThis.console, 'error').mockImplementation(() => undefined);
    const warn = vi.spyOn(globalThis.console, 'warn').mockImplementation(() => undefined);
    sdkConsole.error('Could not parse message into JSON:', '{\u001b]0;PWNED\u0007\u001b[2J');
    sdkConsole.warn('From chunk:', ['data: \u001b]52;c;eA==\u0007']);
    expect(error).toHaveBeenCalledWith('Could not parse message into JSON: {');
    expect(String(warn.mock.calls[0]![0])).not.toMatch(/[\u001b\u0007]/);
    expect(String(warn.mock.calls[0]![0])).toContain('From chunk:');
  });

  it("takes out the process's secrets (an API key a proxy echoed into the reply it printed)", () => {
    const error = vi.spyOn(globalThis.console, 'error').mockImplementation(() => undefined);
    processSecrets.add('sk-test-echoed-0123456789');
    sdkConsole.error('Could not parse message into JSON:', '{"auth":"Bearer sk-test-echoed-0123456789"');
    expect(String(error.mock.calls[0]![0])).not.toContain('sk-test-echoed-0123456789');
    expect(String(error.mock.calls[0]![0])).toContain('Could not parse message into JSON:');
  });

  it('keeps the rest of the console (time, table) as it is', () => {
    expect(typeof sdkConsole.time).toBe('function');
    expect(sdkConsole.table).toBe(globalThis.console.table);
  });
});
