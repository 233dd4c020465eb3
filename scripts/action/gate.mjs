#!/usr/bin/env node
// action.yml's last step: read the SARIF that `faultline lint` wrote, annotate each finding on its
// file and line (workflow commands: visible in the pull request even without code scanning), write
// the counts to $GITHUB_OUTPUT and a table to $GITHUB_STEP_SUMMARY, and exit 1 when findings at or
// above FAULTLINE_FAIL_ON (error | warning | never) exist.
import { appendFileSync, readFileSync } from 'node:fs';

const LEVELS = { error: 2, warning: 1, note: 0, none: 0 };
const FAIL_ON = { error: 2, warning: 1, never: Infinity };

/** Workflow-command escaping (GitHub's toolkit: issueCommand). */
const escapeData = (s) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

function fail(message) {
  console.log(`::error title=faultline::${escapeData(message)}`);
  process.exit(2);
}

const sarifPath = process.env.FAULTLINE_SARIF;
if (!sarifPath) fail('no SARIF file: the lint step did not finish');
const failOn = process.env.FAULTLINE_FAIL_ON || 'error';
if (!(failOn in FAIL_ON)) fail(`fail-on "${failOn}": use error, warning or never`);

let log;
try {
  log = JSON.parse(readFileSync(sarifPath, 'utf8'));
} catch (e) {
  fail(`cannot read ${sarifPath}: ${e.message}`);
}
const results = (log.runs ?? []).flatMap((run) => run.results ?? []);
const counts = { error: 0, warning: 0, note: 0 };
const rows = [];
for (const r of results) {
  const level = r.level ?? 'warning';
  // Hazards only facts not given could make apply: no annotation each; the run's one line says how many.
  if (level === 'none') continue;
  counts[level in counts ? level : 'note']++;
  const loc = r.locations?.[0]?.physicalLocation;
  const file = loc?.artifactLocation?.uri ?? '';
  const line = loc?.region?.startLine ?? 1;
  const col = loc?.region?.startColumn ?? 1;
  const title = `${r.ruleId} ${r.properties?.alias ?? ''}`.trim();
  const command = level === 'error' ? 'error' : level === 'warning' ? 'warning' : 'notice';
  console.log(`::${command} file=${escapeProperty(file)},line=${line},col=${col},title=${escapeProperty(title)}::${escapeData(r.message?.text ?? '')}`);
  rows.push(`| ${level} | ${r.ruleId} | \`${file}:${line}:${col}\` |`);
}
for (const run of log.runs ?? []) if (run.properties?.dependOnFacts) console.log(`faultline: ${run.properties.dependOnFacts}`);
if (process.env.GITHUB_OUTPUT) appendFileSync(process.env.GITHUB_OUTPUT, `errors=${counts.error}\nwarnings=${counts.warning}\n`);
if (process.env.GITHUB_STEP_SUMMARY)
  appendFileSync(
    process.env.GITHUB_STEP_SUMMARY,
    [`### faultline: ${counts.error} error(s), ${counts.warning} warning(s)`, '', '| level | hazard | where |', '|---|---|---|', ...rows, ''].join('\n'),
  );
const worst = Math.max(-1, ...results.map((r) => LEVELS[r.level ?? 'warning'] ?? 0));
if (worst >= FAIL_ON[failOn]) {
  console.log(`faultline: failing (fail-on: ${failOn}): ${counts.error} error(s), ${counts.warning} warning(s)`);
  process.exit(1);
}
console.log(`faultline: ${counts.error} error(s), ${counts.warning} warning(s); fail-on: ${failOn}`);
