// The HTML report's inline stylesheet (no external fonts or resources; prints and reads without JavaScript).
import { SEVERITY_COLOR } from './html-text.js';

/** CSS for lib/report/html.ts; the severity colours are SEVERITY_COLOR's (html-text.ts), so the SVG marks match. */
export const HTML_CSS = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; padding: 16px 24px 40px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1e293b; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
h2 { font-size: 17px; margin: 26px 0 8px; padding-bottom: 4px; border-bottom: 1px solid #e2e8f0; }
code, pre, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
pre { white-space: pre-wrap; word-break: break-word; margin: 6px 0; background: #f8fafc; border: 1px solid #e2e8f0; border-radius: 4px; padding: 8px; }
.badge { display: inline-block; padding: 2px 10px; border-radius: 4px; color: #fff; font-weight: 700; letter-spacing: .04em; }
.badge.passed { background: ${SEVERITY_COLOR.ok}; } .badge.failed { background: ${SEVERITY_COLOR.fail}; } .badge.error { background: #7c2d12; }
.sub { color: #475569; margin: 0 0 10px; }
.counts { margin: 6px 0 12px; font-weight: 600; }
dl.facts { display: grid; grid-template-columns: repeat(3, max-content minmax(0, 1fr)); gap: 2px 14px; margin: 0; }
dl.facts dt { color: #475569; } dl.facts dd { margin: 0; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; word-break: break-all; }
.error-box { border: 1px solid #fca5a5; background: #fef2f2; border-radius: 6px; padding: 8px 12px; margin: 10px 0; }
details.check { border: 1px solid #e2e8f0; border-left: 5px solid #94a3b8; border-radius: 4px; margin: 6px 0; padding: 4px 10px; }
details.check.fail { border-left-color: ${SEVERITY_COLOR.fail}; background: #fef2f2; }
details.check.warn { border-left-color: ${SEVERITY_COLOR.warn}; } details.check.ok { border-left-color: ${SEVERITY_COLOR.ok}; } details.check.info { border-left-color: #94a3b8; }
details.check > summary { cursor: pointer; list-style: none; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
details.check > summary::-webkit-details-marker { display: none; }
details.check > summary::before { content: "▸ "; color: #64748b; }
details.check[open] > summary::before { content: "▾ "; }
details.check[open] > summary { white-space: normal; }
.tag { display: inline-block; min-width: 4.2em; font-weight: 700; font-size: 12px; }
.known { display: inline-block; padding: 0 6px; border-radius: 4px; font-size: 12px; font-weight: 600; background: #fef3c7; color: #92400e; }
.known.new, .known.regression { background: #fee2e2; color: #991b1b; } .known.unknown { background: #e2e8f0; color: #334155; }
.tag.fail { color: ${SEVERITY_COLOR.fail}; } .tag.warn { color: ${SEVERITY_COLOR.warn}; } .tag.ok { color: ${SEVERITY_COLOR.ok}; } .tag.info { color: ${SEVERITY_COLOR.info}; }
.msg { color: #334155; } details.check.fail .msg { color: #7f1d1d; }
.meta { color: #64748b; font-size: 12.5px; margin: 4px 0; }
ul.evidence { margin: 4px 0 6px; padding-left: 18px; } ul.evidence li { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; word-break: break-word; }
figure { margin: 8px 0 18px; } figcaption { color: #475569; font-size: 13px; margin-bottom: 2px; }
svg.timeline { display: block; font: 11px system-ui, "DejaVu Sans", sans-serif; border: 1px solid #e2e8f0; border-radius: 4px; }
svg.timeline .lane:nth-of-type(odd) { fill: #f8fafc; } svg.timeline .lane { fill: #fff; stroke: #e2e8f0; stroke-width: .5; }
svg.timeline .lane-name { font-weight: 700; fill: #334155; font-size: 12px; }
svg.timeline .tick { stroke: #cbd5e1; stroke-dasharray: 2 3; } svg.timeline .axis { fill: #64748b; }
svg.timeline .leader { stroke: #94a3b8; stroke-width: .8; }
svg.timeline .bar { fill-opacity: .25; stroke-width: 1; }
svg.timeline .down { fill: #f59e0b; fill-opacity: .14; stroke: #d97706; stroke-dasharray: 4 3; }
svg.timeline .down-label { fill: #92400e; font-weight: 700; }
svg.timeline .end { stroke: #334155; stroke-width: 1.5; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 3px 8px; border-bottom: 1px solid #f1f5f9; }
th { background: #f1f5f9; font-size: 12.5px; white-space: nowrap; }
td.t { white-space: nowrap; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
td.detail { word-break: break-word; font-size: 13px; color: #334155; }
td.label { min-width: 16em; }
tr.fail td.label { color: ${SEVERITY_COLOR.fail}; font-weight: 600; } tr.warn td.label { color: ${SEVERITY_COLOR.warn}; font-weight: 600; } tr.ok td.label { color: ${SEVERITY_COLOR.ok}; }
.note { color: #64748b; font-style: italic; }
`;
