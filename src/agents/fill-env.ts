import { ToolFailure, type RunContext } from '../execute/runner.js';

/**
 * `${env:NAME}` in an agent's settings (URL, headers) filled from the environment. Each value
 * becomes a secret at once, so it is redacted from everything the call returns or reports; a
 * variable that is not set fails the call with its name and where it is used.
 */
export function fillEnv(text: string, context: Pick<RunContext, 'env' | 'secrets'>, where: string): string {
  return text.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const value = context.env[name];
    if (value === undefined || value === '') throw new ToolFailure(`${where} needs the environment variable ${name}, which is not set`);
    context.secrets.add(value);
    return value;
  });
}
