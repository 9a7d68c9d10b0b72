/**
 * Secret values (what `${env:NAME}` expanded to) that must never reach output: every text toolman
 * returns or writes passes through `redact`. Values shorter than 4 characters are not kept, since
 * they would blank out ordinary text.
 */
export class SecretSet {
  private readonly values = new Set<string>();

  add(value: string): void {
    if (value.length >= 4) this.values.add(value);
  }

  get size(): number {
    return this.values.size;
  }

  redact(text: string): string {
    let out = text;
    for (const secret of this.values) out = out.split(secret).join('[redacted]');
    return out;
  }
}
