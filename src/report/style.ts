/** The report's stylesheet: inline (the CSP allows inline styles only), system fonts, prints well. */
export const STYLE = `
:root { --fg: #1d1d1f; --muted: #666; --line: #ddd; --corrupt: #c0392b; --pass: #3a923a; --warn: #b9770e; --bg-soft: #f6f7f9; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", Helvetica, Arial, sans-serif; color: var(--fg); margin: 0; background: white; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 60px; }
header h1 { font-size: 24px; margin: 0 0 4px; }
header p { margin: 0; color: var(--muted); }
h2 { font-size: 19px; margin: 36px 0 10px; padding-top: 12px; border-top: 2px solid var(--line); }
h3 { font-size: 16px; margin: 22px 0 8px; }
h4 { font-size: 14px; margin: 14px 0 6px; }
.source { font-weight: normal; font-size: 13px; color: var(--muted); font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.muted { color: var(--muted); font-weight: normal; }
.small { font-size: 12px; }
.refs { font-size: 12px; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace; font-size: 12.5px; }
code.hash { font-size: 11px; color: var(--muted); word-break: break-all; }
nav { margin: 12px 0 0; font-size: 13px; }
nav a { margin-right: 14px; color: #2960a8; }
table { border-collapse: collapse; margin: 8px 0 14px; font-size: 13px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 10px 4px 0; text-align: left; vertical-align: top; }
th { font-weight: 600; color: #444; }
table.facts th { display: none; }
table.facts td:first-child { color: var(--muted); width: 90px; }
td ul { margin: 0; padding-left: 16px; }
.badge { display: inline-block; white-space: nowrap; padding: 1px 7px; border-radius: 3px; font-size: 12px; font-weight: 600; color: white; background: #888; letter-spacing: .02em; }
.badge.corrupt, .badge.error { background: var(--corrupt); }
.badge.pass, .badge.clean { background: var(--pass); }
.badge.findings, .badge.inconclusive, .badge.probe-error, .badge.timeout { background: var(--warn); }
.badge.launch-failed, .badge.muted { background: #777; }
.summary .card { border: 1px solid var(--line); border-left: 6px solid #888; border-radius: 4px; padding: 10px 14px; margin: 10px 0; background: var(--bg-soft); }
.summary .card.corrupt { border-left-color: var(--corrupt); }
.summary .card.clean { border-left-color: var(--pass); }
.summary .card.findings, .summary .card.inconclusive { border-left-color: var(--warn); }
.summary .kind { font-weight: 600; margin-left: 4px; }
.summary .headline { font-size: 15px; font-weight: 600; margin: 6px 0 4px; }
.summary ul { margin: 4px 0 0; padding-left: 20px; }
.interaction { margin: 10px 0; }
.interaction .pairs { font-size: 15px; font-weight: 600; font-family: ui-monospace, "DejaVu Sans Mono", monospace; margin: 2px 0; color: var(--corrupt); }
ul.notes { color: var(--warn); }
figure.chart { margin: 18px 0; padding: 12px; border: 1px solid var(--line); border-radius: 4px; overflow-x: auto; }
figure.chart h4 { margin-top: 0; }
figure.chart figcaption { color: var(--muted); font-size: 12.5px; margin-top: 6px; max-width: 900px; }
figure.chart svg { display: block; max-width: none; }
.example { margin: 12px 0 18px; }
.side-by-side { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.side-by-side .label { font-size: 12px; color: var(--muted); margin-bottom: 2px; }
pre.model-text { white-space: pre-wrap; word-break: break-word; background: var(--bg-soft); border: 1px solid var(--line); border-radius: 3px; padding: 8px 10px; margin: 0; min-height: 3em; }
mark.corrupt { background: #f5b7b1; color: #78170f; outline: 1px solid var(--corrupt); border-radius: 2px; }
.provenance dl { display: grid; grid-template-columns: 100px 1fr; gap: 2px 10px; margin: 0 0 10px; }
.provenance dt { color: var(--muted); }
.provenance dd { margin: 0; }
@media print { figure.chart { break-inside: avoid; } main { max-width: none; } }
`;
