import { toolIndex } from '../catalog/tool-index.js';
import type { Catalog, Tool } from '../catalog/types.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { matchesPattern, parsePattern, type ParsedPattern } from '../catalog/tool-patterns.js';
import { defaultProfileName, resolveProfile, type ResolvedProfile } from './resolve-profile.js';

export type SelectionState = 'active' | 'deferred' | 'removed';
/** The step of the selection order that decided a tool's state. */
export type SelectionStep = 'enabled' | 'profile' | 'policy' | 'forced' | 'exclusive' | 'defer';

export interface ToolDecision {
  tool: Tool;
  state: SelectionState;
  step: SelectionStep;
  /** The pattern, policy label or flag responsible. */
  rule: string;
}

export interface SelectionRequest {
  /** Profile name; default: the catalog's `default` profile, else `full`. */
  profile?: string;
  /** Tools the user forces (names or aliases): offered as the required tool choice in the first round. */
  force?: readonly string[];
  /**
   * Automatic deferral (`defer: auto` in the profile, or asked for here): with the cost of each
   * tool's definition and a budget, the costliest tools are deferred until the active set fits.
   */
  autoDefer?: AutoDefer;
}

export interface AutoDefer {
  /** Tokens available for definitions sent up front. */
  budget: number;
  /** Tokens a tool's definition costs (for the provider being budgeted). */
  cost: (tool: Tool) => number;
  /** Tokens spent whatever is active: meta-tools, fixed overhead, prompt contributions. */
  reserve?: number;
  /** Apply even when the profile does not say `defer: auto`. */
  force?: boolean;
}

export interface Selection {
  profile: ResolvedProfile;
  /** One per catalog tool, in catalog order. */
  decisions: ToolDecision[];
  active: Tool[];
  deferred: Tool[];
  /** Offered as the required tool choice in the first round only. */
  forced: Tool[];
  /** Set when a forced tool is exclusive: it is then the only tool offered and run. */
  exclusive?: Tool;
}

function compile(patterns: readonly string[]): { text: string; pattern: ParsedPattern }[] {
  return patterns.flatMap((text) => {
    const parsed = parsePattern(text);
    return parsed.ok ? [{ text, pattern: parsed.pattern }] : []; // validate reports bad patterns (TM0604)
  });
}

const firstMatch = (tool: Tool, patterns: { text: string; pattern: ParsedPattern }[]) => patterns.find((p) => matchesPattern(tool, p.pattern))?.text;

/**
 * Which tools a model sees, decided in DESIGN.md §3's fixed order: enabled, profile, policies in
 * order, the user's forced choice, exclusivity, then the split into active and deferred. A pure
 * function of the catalog and the request; every tool's decision names its step and rule.
 */
export function selectTools(catalog: Catalog, request: SelectionRequest = {}): Selection {
  const profile = resolveProfile(catalog, request.profile ?? defaultProfileName(catalog));
  const include = compile(profile.include);
  const exclude = compile(profile.exclude);
  const defer = compile(profile.defer);
  const policies = catalog.policies.map((policy) => ({ label: policy.label, deny: compile(policy.deny), allow: policy.allow ? compile(policy.allow) : undefined }));

  const policyVerdict = (tool: Tool): string | undefined => {
    for (const policy of policies) {
      const denied = firstMatch(tool, policy.deny);
      if (denied) return `${policy.label}: deny ${denied}`;
      if (policy.allow && !firstMatch(tool, policy.allow)) return `${policy.label}: not allowed`;
    }
    return undefined;
  };

  const decisions: ToolDecision[] = catalog.tools.map((tool) => {
    if (!tool.enabled) return { tool, state: 'removed', step: 'enabled', rule: 'enabled: false' };
    const excluded = firstMatch(tool, exclude);
    if (excluded) return { tool, state: 'removed', step: 'profile', rule: `exclude: ${excluded}` };
    const included = include.length === 0 ? '(all tools)' : firstMatch(tool, include);
    if (!included) return { tool, state: 'removed', step: 'profile', rule: `not in profile ${profile.name}` };
    const denied = policyVerdict(tool);
    if (denied) return { tool, state: 'removed', step: 'policy', rule: denied };
    return { tool, state: 'active', step: 'profile', rule: `include: ${included}` };
  });

  const byTool = new Map(decisions.map((d) => [d.tool, d]));
  const forcedByProfile = compile(profile.forced);
  const forced: ToolDecision[] = [];
  for (const name of request.force ?? []) {
    const decision = byTool.get(toolIndex(catalog).require(name, `cannot force "${name}": no such tool`))!;
    // Forcing overrides the profile, never a policy or `enabled: false`.
    const blocked = !decision.tool.enabled ? 'enabled: false' : policyVerdict(decision.tool);
    if (blocked) {
      throw new ToolmanError(ErrorCode.SELECTION, `cannot force "${decision.tool.name}": it is removed by ${decision.tool.enabled ? `policy ${blocked}` : blocked}`, {
        hint: 'policies and enabled: false are not overridden by forcing',
      });
    }
    Object.assign(decision, { state: 'active', step: 'forced', rule: 'forced by the user' });
    if (!forced.includes(decision)) forced.push(decision);
  }
  for (const decision of decisions) {
    const pattern = decision.state !== 'removed' && !forced.includes(decision) ? firstMatch(decision.tool, forcedByProfile) : undefined;
    if (pattern) {
      Object.assign(decision, { state: 'active', step: 'forced', rule: `forced: ${pattern}` });
      forced.push(decision);
    }
  }

  const exclusiveForced = forced.filter((d) => d.tool.exclusive);
  if (exclusiveForced.length > 1) {
    throw new ToolmanError(ErrorCode.SELECTION, `cannot force several exclusive tools at once: ${exclusiveForced.map((d) => d.tool.name).join(', ')}`);
  }
  const exclusive = exclusiveForced[0]?.tool;
  for (const decision of decisions) {
    if (decision.state === 'removed') continue;
    if (exclusive && decision.tool !== exclusive) Object.assign(decision, { state: 'removed', step: 'exclusive', rule: `${exclusive.name} is exclusive` });
    else if (!exclusive && decision.tool.exclusive && decision.step !== 'forced') Object.assign(decision, { state: 'removed', step: 'exclusive', rule: 'exclusive: offered only when forced' });
  }

  for (const decision of decisions) {
    if (decision.state !== 'active' || decision.step === 'forced') continue;
    if (decision.tool.deferLoading) {
      Object.assign(decision, { state: 'deferred', step: 'defer', rule: 'defer_loading' });
      continue;
    }
    const deferred = firstMatch(decision.tool, defer);
    // A defer pattern that matches an always_load tool decided nothing: always_load did, so it is named.
    if (deferred && decision.tool.alwaysLoad) Object.assign(decision, { step: 'defer', rule: `always_load (overrides defer: ${deferred})` });
    else if (deferred) Object.assign(decision, { state: 'deferred', step: 'defer', rule: `defer: ${deferred}` });
  }

  const auto = request.autoDefer;
  if (auto && (profile.deferAuto || auto.force)) {
    const active = decisions.filter((d) => d.state === 'active');
    let total = (auto.reserve ?? 0) + active.reduce((sum, d) => sum + auto.cost(d.tool), 0);
    // Never forced or always_load tools; the costliest first, so the fewest tools move.
    const candidates = active.filter((d) => d.step !== 'forced' && !d.tool.alwaysLoad).sort((a, b) => auto.cost(b.tool) - auto.cost(a.tool));
    for (const decision of candidates) {
      if (total <= auto.budget) break;
      total -= auto.cost(decision.tool);
      Object.assign(decision, { state: 'deferred', step: 'defer', rule: `defer: auto (budget ${auto.budget})` });
    }
    // Still over with nothing left to move: the always_load tools stayed because of always_load.
    if (total > auto.budget) {
      for (const decision of active) if (decision.tool.alwaysLoad && decision.step !== 'forced' && decision.state === 'active') Object.assign(decision, { step: 'defer', rule: `always_load (overrides defer: auto, budget ${auto.budget})` });
    }
  }

  return {
    profile,
    decisions,
    active: decisions.filter((d) => d.state === 'active').map((d) => d.tool),
    deferred: decisions.filter((d) => d.state === 'deferred').map((d) => d.tool),
    forced: exclusive ? [exclusive] : forced.map((d) => d.tool),
    ...(exclusive ? { exclusive } : {}),
  };
}
