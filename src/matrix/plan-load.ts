/**
 * Reading a plan file: YAML with positions → schema validation → compiled plan. Every
 * problem is a UserError at the plan's line:col, never a stack trace.
 */
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { UserError, formatLocation } from '../core/errors.js';
import { planSchema } from './plan.js';
import { compilePlan, type MatrixPlan } from './plan-compile.js';
import { parseLocatedYaml, type DataPath, type LocatedYaml } from './yaml-located.js';

export function loadPlanFile(path: string): MatrixPlan {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read plan ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, {
      code: 'E_PLAN_READ',
      hint: 'pass the path of a matrix plan YAML file',
    });
  }
  return parsePlan(path, text);
}

export function parsePlan(file: string, text: string): MatrixPlan {
  const yaml = parseLocatedYaml(file, text);
  const parsed = planSchema.safeParse(withoutExtensions(yaml.data));
  if (!parsed.success) throw schemaError(yaml, parsed.error.issues);
  return compilePlan(parsed.data, yaml, text);
}

/** Top-level `x-…` keys are ignored (as in compose files): a place for YAML anchors. */
function withoutExtensions(data: unknown): unknown {
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) return data;
  return Object.fromEntries(Object.entries(data).filter(([key]) => !key.startsWith('x-')));
}

export function pathText(path: DataPath): string {
  return path.reduce<string>(
    (s, seg) => (typeof seg === 'number' ? `${s}[${seg}]` : /^[A-Za-z_][\w-]*$/.test(seg) ? (s ? `${s}.${seg}` : seg) : `${s}["${seg}"]`),
    '',
  );
}

function schemaError(yaml: LocatedYaml, issues: readonly z.core.$ZodIssue[]): UserError {
  const described = issues.map((issue) => {
    const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      const key = issue.keys[0];
      return { at: yaml.keyAt([...path, key]), text: `${pathText([...path, key])}: unknown key "${key}"` };
    }
    const where = pathText(path) || 'plan';
    return { at: yaml.at(path), text: `${where}: ${issue.message}` };
  });
  const [first, ...rest] = described;
  const more = rest.length ? `\n${rest.slice(0, 9).map((d) => `  also ${formatLocation(d.at)}: ${d.text}`).join('\n')}` : '';
  return new UserError(`invalid matrix plan: ${first.text}${more}`, {
    code: 'E_PLAN_SCHEMA',
    at: first.at,
    hint: 'the plan format is in schema/matrix-plan.schema.json (docs: src/matrix/README.md)',
  });
}
