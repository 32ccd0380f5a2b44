/**
 * The report as JUnit XML, for CI test tabs: a `<testsuite>` per scorer, a `<testcase>` per case
 * and trial. A failure is `<failure>`, a scorer error or an infrastructure error is `<error>`,
 * not applicable is `<skipped>`.
 */
import { describeToolCalls } from "./format-table.js";
import type { EvalReportData, EvalRow } from "./report-schema.js";

/** Characters XML 1.0 does not allow at all, even escaped (control characters, lone surrogates, U+FFFE/U+FFFF). */
// eslint-disable-next-line no-control-regex -- the control characters are what this pattern finds
const NOT_XML = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text safe in XML content and in double- or single-quoted attributes. */
export function escapeXml(text: string): string {
  return text
    .replace(NOT_XML, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** An attribute value: escaped, and with line breaks and tabs kept as character references (parsers normalise them otherwise). */
function attribute(text: string): string {
  return escapeXml(text).replace(/\n/g, "&#10;").replace(/\r/g, "&#13;").replace(/\t/g, "&#9;");
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function body(report: EvalReportData, row: EvalRow): string {
  const run = report.runs.find((r) => r.case === row.case && r.trial === row.trial);
  const lines = [
    ...(row.evidence?.claim !== undefined
      ? [`claim: ${row.evidence.claim}${row.evidence.claimPattern ? ` (${row.evidence.claimPattern})` : ""}`]
      : []),
    ...(row.evidence?.missingTools?.length ? [`missing: ${row.evidence.missingTools.join(", ")}`] : []),
    `tool calls: ${describeToolCalls(row.evidence?.toolCalls ?? run?.toolCalls)}`,
    ...(run?.reply !== undefined ? [`reply: ${run.reply}`] : []),
    `workflow: ${run?.workflowId ?? "?"}`,
  ];
  return escapeXml(lines.join("\n"));
}

function testcase(report: EvalReportData, row: EvalRow): string {
  const run = report.runs.find((r) => r.case === row.case && r.trial === row.trial);
  const open =
    `    <testcase classname="${attribute(`${report.agent}.${row.scorer}`)}" ` +
    `name="${attribute(`${row.case} [trial ${row.trial}]`)}" time="${seconds(run?.durationMs ?? 0)}"`;
  switch (row.status) {
    case "pass":
      return `${open}/>`;
    case "not-applicable":
      return `${open}>\n      <skipped message="${attribute(row.reason ?? "not applicable")}"/>\n    </testcase>`;
    case "fail":
      return `${open}>\n      <failure message="${attribute(row.reason ?? "failed")}" type="fail">${body(report, row)}</failure>\n    </testcase>`;
    case "error":
    case "infrastructure-error": {
      const error = row.error ?? { name: "Error", message: "unknown error" };
      const kind = row.status === "error" ? "scorer error" : "infrastructure error";
      return (
        `${open}>\n      <error message="${attribute(`${kind}: ${error.message}`)}" ` +
        `type="${attribute(error.name)}">${escapeXml(`${error.name}: ${error.message}`)}</error>\n    ` +
        `</testcase>`
      );
    }
  }
}

/** The report as a JUnit XML document. */
export function toJUnitXml(report: EvalReportData): string {
  const suites = report.scorers.map((summary) => {
    const rows = report.rows.filter((row) => row.scorer === summary.scorer);
    const time = rows.reduce(
      (sum, row) => sum + (report.runs.find((r) => r.case === row.case && r.trial === row.trial)?.durationMs ?? 0),
      0,
    );
    return (
      `  <testsuite name="${attribute(`${report.agent}.${summary.scorer}`)}" tests="${rows.length}" failures="${summary.failed}" ` +
      `errors="${summary.errors + summary.infrastructureErrors}" skipped="${summary.notApplicable}" ` +
      `time="${seconds(time)}" timestamp="${report.startedAt}">\n` +
      rows.map((row) => testcase(report, row)).join("\n") +
      `\n  </testsuite>`
    );
  });
  const t = report.totals;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites name="${attribute(`durable-agent eval: ${report.agent}`)}" tests="${report.rows.length}" failures="${t.failed}" ` +
    `errors="${t.errors + report.rows.filter((r) => r.status === "infrastructure-error").length}" ` +
    `skipped="${t.notApplicable}" time="${seconds(report.durationMs)}">\n` +
    suites.join("\n") +
    `\n</testsuites>\n`
  );
}
