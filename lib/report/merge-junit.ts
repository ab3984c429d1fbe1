// The merged JUnit document: one <testsuites> with the merged suites, its counts the sums of theirs. Pure.
import type { MergedReport } from './merge.js';
import { serialize, type XmlElement } from './xml.js';

/** Render the merged suites as one JUnit document (root counts add up; junit-10.xsd's testsuites has no `skipped`). */
export function renderMergedJUnit(report: MergedReport): string {
  const { tests, failures, errors, timeS } = report.totals;
  const root: XmlElement = {
    name: 'testsuites',
    attrs: { name: 'nomad-reboot-harness', tests, failures, errors, time: timeS.toFixed(3) },
    children: report.suites,
  };
  return `<?xml version="1.0" encoding="UTF-8"?>\n${serialize(root)}\n`;
}
