import type { DiagnosticCode } from '../../catalog/diagnostic-codes.js';
import type { SourceFile } from '../../catalog/source-file.js';
import type { RuleLevel } from '../../validate/rule-settings.js';
import { writeFixes } from '../../manager/lint.js';
import type { AppliedFix } from '../../validate/write-fixes.js';
import type { CliIO } from '../io.js';
import { withManager } from '../open-manager.js';

/** Passes of fixes at most: each pass's fixes can make new ones possible (a second `required: true` of one object). */
const MAX_PASSES = 10;

/**
 * `validate --fix`: applies the fixes the findings name (did-you-mean keys, types, values and
 * formats; `required: true` moved to the parent's `required`; an exec command line split into
 * argv) to the catalog files, pass after pass until none is left, as ESLint does. Rule settings
 * apply: a finding turned off or disabled on its line is not fixed.
 */
export async function fixCatalogs(roots: readonly (readonly string[])[], rules: ReadonlyMap<DiagnosticCode, RuleLevel>, io: CliIO): Promise<{ applied: AppliedFix[]; refused: { file: string; reason: string }[] }> {
  const applied: AppliedFix[] = [];
  const refused = new Map<string, string>();
  for (const root of roots) {
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const done = await withManager(io, [...root], async (manager) => {
        const diagnostics = (await manager.validate(rules)).filter((d) => !refused.has(d.file));
        return writeFixes(diagnostics, manager.loaded.sources as ReadonlyMap<string, SourceFile>);
      }, { requireValid: false }).catch(() => undefined); // an unreadable root is reported by the run that follows
      if (!done) break;
      applied.push(...done.applied);
      for (const r of done.refused) refused.set(r.file, r.reason);
      if (done.applied.length === 0) break;
    }
  }
  return { applied, refused: [...refused].map(([file, reason]) => ({ file, reason })) };
}
