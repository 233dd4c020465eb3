/**
 * JSON reports. JSON has no NaN or Infinity: a non-finite number (a NaN-filled output's error) is
 * written as the string "NaN", "Infinity" or "-Infinity" so that nothing is silently turned into null.
 */
import { VERSION } from '../core/version.js';
import type { Characterization } from './characterize.js';
import type { ScaleAuditResult } from './scales.js';
import type { CaseResult } from './verify.js';

export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v), 2) + '\n';
}

export function verifyJson(cases: CaseResult[], ch: Characterization, tolerance: string): string {
  return toJson({
    tool: 'faultline kernel verify',
    version: VERSION,
    tolerance,
    ok: cases.every((c) => c.ok),
    dumps: cases,
    characterization: ch,
  });
}

export function scalesJson(r: ScaleAuditResult): string {
  return toJson({ tool: 'faultline kernel scales', version: VERSION, ...r });
}
