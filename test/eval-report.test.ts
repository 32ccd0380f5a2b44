/** Issue 4, item 5 (pure parts): summaries, pass@1 / pass^k / flaky, the JSON schema, JUnit, compareReports, the gate. */
import { readFileSync } from "node:fs";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { buildReport, type ReportInputs } from "../src/eval/build-report.js";
import {
  compareReports,
  EvalAssertionError,
  formatComparison,
  EvalReport,
  evalReportJsonSchema,
  evalReportSchema,
  EvalReportFormatError,
  parseReport,
  toJUnitXml,
  type EvalRow,
  type EvalRun,
  type TrialOutcome,
} from "../src/index.js";

type Cell = "pass" | "fail" | "n/a" | "error" | "infra";
const STATUS: Record<Cell, TrialOutcome> = {
  pass: "pass",
  fail: "fail",
  "n/a": "not-applicable",
  error: "error",
  infra: "infrastructure-error",
};

/** A report from a grid: cases → trials → one cell per scorer. */
function reportOf(grid: Record<string, Cell[][]>, scorers = ["a", "b"], agent = "coach"): EvalReport {
  const runs: EvalRun[] = [];
  const rows: EvalRow[] = [];
  for (const [name, trials] of Object.entries(grid)) {
    trials.forEach((cells, t) => {
      const infra = cells.includes("infra");
      runs.push({
        case: name,
        trial: t + 1,
        status: infra ? "infrastructure-error" : "completed",
        workflowId: `wf-${name}-${t + 1}`,
        durationMs: 250,
        toolCalls: [],
        ...(infra
          ? { error: { name: "ModelApiError", message: "401 Incorrect API key" } }
          : { runId: "r", reply: "ok", stopReason: "answered" as const, trips: 1 }),
      });
      cells.forEach((cell, s) => {
        rows.push({
          case: name,
          trial: t + 1,
          scorer: scorers[s]!,
          status: STATUS[cell],
          ...(cell === "fail" ? { reason: "required tool not called", evidence: { toolCalls: [] } } : {}),
          ...(cell === "error" ? { error: { name: "TypeError", message: "boom" } } : {}),
          ...(cell === "infra" ? { error: { name: "ModelApiError", message: "401 Incorrect API key" } } : {}),
        });
      });
    });
  }
  const inputs: ReportInputs = {
    agent,
    startedAt: new Date("2026-01-01T00:00:00Z"),
    finishedAt: new Date("2026-01-01T00:00:02Z"),
    trials: Math.max(...Object.values(grid).map((t) => t.length)),
    cases: Object.keys(grid).map((name) => ({ name, input: `input of ${name}`, metadata: {} })),
    scorers,
    runs,
    rows,
  };
  return new EvalReport(buildReport(inputs));
}

describe("report summaries", () => {
  it("per scorer: pass rate over judged rows; not applicable, scorer errors and infrastructure errors are counted apart", () => {
    const report = reportOf({
      one: [["pass", "n/a"]],
      two: [["fail", "error"]],
      three: [["pass", "pass"]],
      four: [["infra", "infra"]],
    });
    expect(report.scorers).toEqual([
      { scorer: "a", passed: 2, failed: 1, notApplicable: 0, errors: 0, infrastructureErrors: 1, passRate: 2 / 3 },
      { scorer: "b", passed: 1, failed: 0, notApplicable: 1, errors: 1, infrastructureErrors: 1, passRate: 1 },
    ]);
    expect(report.totals).toMatchObject({
      passed: 3,
      failed: 1,
      notApplicable: 1,
      errors: 1,
      infrastructureErrors: 1,
      passRate: 0.75,
    });
  });

  it("with trials > 1: pass@1, pass^k per case, and cases that passed some trials and failed others flagged flaky", () => {
    const report = reportOf({
      steady: [
        ["pass", "pass"],
        ["pass", "n/a"],
        ["pass", "pass"],
      ],
      flaky: [
        ["pass", "pass"],
        ["fail", "pass"],
        ["pass", "pass"],
      ],
      broken: [
        ["fail", "pass"],
        ["fail", "fail"],
        ["fail", "pass"],
      ],
      unknown: [
        ["pass", "pass"],
        ["infra", "infra"],
        ["pass", "pass"],
      ],
      skipped: [
        ["n/a", "n/a"],
        ["n/a", "n/a"],
        ["n/a", "n/a"],
      ],
    });
    const byName = Object.fromEntries(report.cases.map((c) => [c.case, c]));
    expect(byName.steady).toMatchObject({
      outcomes: ["pass", "pass", "pass"],
      passAt1: 1,
      passHatK: true,
      flaky: false,
    });
    expect(byName.flaky).toMatchObject({
      outcomes: ["pass", "fail", "pass"],
      passed: 2,
      failed: 1,
      passAt1: 2 / 3,
      passHatK: false,
      flaky: true,
    });
    expect(byName.broken).toMatchObject({ passAt1: 0, passHatK: false, flaky: false });
    expect(byName.unknown).toMatchObject({
      outcomes: ["pass", "infrastructure-error", "pass"],
      passAt1: 1,
      passHatK: null,
    });
    expect(byName.skipped).toMatchObject({
      outcomes: ["not-applicable", "not-applicable", "not-applicable"],
      passAt1: null,
      passHatK: null,
    });
    expect(report.totals).toMatchObject({ flakyCases: 1, passHatKRate: 1 / 3, passAt1: 7 / 11 });
    expect(report.toTable()).toMatch(/^flaky\s+66\.7%\s+no\s+FLAKY$/m);
    expect(report.toTable()).toContain("pass^3 33.3%, pass@1 63.6%, 1 flaky");
  });
});

describe("the JSON report", () => {
  it("has a documented, stable schema: docs/eval-report.schema.json is the report schema, and the doc names every field", () => {
    expect(JSON.parse(readFileSync("docs/eval-report.schema.json", "utf8"))).toEqual(evalReportJsonSchema());
    const doc = readFileSync("docs/eval-report-schema.md", "utf8");
    const report = reportOf({ one: [["fail", "pass"]] });
    const json = JSON.parse(JSON.stringify(report));
    const fields = [json, json.cases[0], json.scorers[0], json.totals, json.runs[0], json.rows[0]].flatMap((object) =>
      Object.keys(object),
    );
    expect(fields.filter((field) => !doc.includes(`\`${field}\``))).toEqual([]);
  });

  it("JSON.stringify(report) is exactly the schema's data, and parseReport reads it back", () => {
    const report = reportOf({ one: [["fail", "pass"]], two: [["infra", "infra"]] });
    const text = JSON.stringify(report);
    expect(evalReportSchema.parse(JSON.parse(text))).toEqual(JSON.parse(text));
    expect(Object.keys(JSON.parse(text))).toEqual([
      "schemaVersion",
      "agent",
      "startedAt",
      "finishedAt",
      "durationMs",
      "trials",
      "cases",
      "scorers",
      "totals",
      "runs",
      "rows",
    ]);
    const back = parseReport(text);
    expect(back).toBeInstanceOf(EvalReport);
    expect(back.toJSON()).toEqual(report.toJSON());
  });

  it("parseReport rejects another schemaVersion and a malformed report with EvalReportFormatError", () => {
    const data = JSON.parse(JSON.stringify(reportOf({ one: [["pass", "pass"]] })));
    expect(() => parseReport({ ...data, schemaVersion: 2 })).toThrow(/Unsupported eval report schemaVersion 2/);
    expect(() => parseReport({ ...data, rows: [{ case: "one" }] })).toThrow(EvalReportFormatError);
    expect(() => parseReport("{ not json")).toThrow(/Not a JSON report/);
  });
});

describe("JUnit XML", () => {
  const nasty = `<swap> & "squats" 'n' \u0000\u0007 \uD800 ]]> lunges`;

  it("is well-formed and escapes names, messages and evidence; failures, errors and not-applicable map to JUnit's failure, error and skip elements", () => {
    const report = reportOf(
      { [nasty]: [["fail", "error"]], ok: [["pass", "n/a"]], down: [["infra", "infra"]] },
      ["requiredToolCalled", `scorer "<b>"`],
      `agent & <co>`,
    );
    const xml = toJUnitXml(report);
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: "",
      isArray: (name) => name === "testsuite" || name === "testcase",
    }).parse(xml);
    expect(parsed.testsuites).toMatchObject({
      name: "durable-agent eval: agent & <co>",
      tests: "6",
      failures: "1",
      errors: "3",
      skipped: "1",
    });
    const [first, second] = parsed.testsuites.testsuite;
    expect(first).toMatchObject({
      name: "agent & <co>.requiredToolCalled",
      tests: "3",
      failures: "1",
      errors: "1",
      skipped: "0",
    });
    expect(first.testcase[0]).toMatchObject({
      name: `<swap> & "squats" 'n' \uFFFD\uFFFD \uFFFD ]]> lunges [trial 1]`,
      failure: { message: "required tool not called", type: "fail" },
    });
    expect(first.testcase[1].failure).toBeUndefined();
    expect(first.testcase[2].error).toMatchObject({
      type: "ModelApiError",
      message: "infrastructure error: 401 Incorrect API key",
    });
    expect(second.name).toBe(`agent & <co>.scorer "<b>"`);
    expect(second.testcase[0].error).toMatchObject({ type: "TypeError", message: "scorer error: boom" });
    expect(second.testcase[1].skipped).toMatchObject({ message: "not applicable" });
  });
});

describe("compareReports(baseline, current)", () => {
  it("lists regressions (pass → fail) and fixes (fail → pass) by case name, with the scorers that changed, and cases added or removed", () => {
    const baseline = reportOf({
      kept: [["pass", "pass"]],
      regressed: [["pass", "pass"]],
      fixed: [["fail", "pass"]],
      gone: [["pass", "pass"]],
    });
    const current = reportOf({
      fixed: [["pass", "pass"]],
      regressed: [["pass", "fail"]],
      kept: [["pass", "pass"]],
      fresh: [["fail", "fail"]],
    });
    expect(compareReports(baseline, current)).toMatchObject({
      regressions: [{ case: "regressed", baseline: "pass", current: "fail", scorers: ["b"] }],
      fixes: [{ case: "fixed", baseline: "fail", current: "pass", scorers: ["a"] }],
      added: ["fresh"],
      removed: ["gone"],
      unchanged: ["kept"],
    });
  });

  it("per scorer: both pass rates with 95% Wilson intervals and a two-sided Fisher exact test, so 3/16 vs 4/16 is within noise and 2/16 vs 14/16 is not", () => {
    const grid = (passing: number) =>
      Object.fromEntries(
        Array.from({ length: 16 }, (_, i) => [`case-${i}`, [[i < passing ? "pass" : "fail", "pass"] as Cell[]]]),
      );
    const noise = compareReports(reportOf(grid(3)), reportOf(grid(4)));
    expect(noise.scorers[0]).toMatchObject({
      scorer: "a",
      baseline: { passed: 3, total: 16 },
      current: { passed: 4, total: 16 },
      significant: false,
      verdict: "within noise",
    });
    expect(noise.fixes).toHaveLength(1); // one case did change; the rate did not beyond noise
    const fixed = compareReports(reportOf(grid(2)), reportOf(grid(14)));
    expect(fixed.scorers[0]).toMatchObject({ significant: true, verdict: "better" });
    expect(fixed.scorers[0]!.pValue!).toBeLessThan(0.001);
    expect(fixed.scorers[0]!.current.interval!.map((x) => Math.round(x * 100))).toEqual([64, 97]);
  });

  it("CaseChange.withinNoise: 3/16 vs 4/16 is a case changed within noise, not a fix, in the headline and the HTML; 2/16 vs 14/16 counts fixes, 14/16 vs 2/16 regressions", () => {
    const grid = (passing: number) =>
      Object.fromEntries(
        Array.from({ length: 16 }, (_, i) => [`case-${i}`, [[i < passing ? "pass" : "fail", "pass"] as Cell[]]]),
      );
    const noise = compareReports(reportOf(grid(3)), reportOf(grid(4)));
    expect(noise.fixes).toEqual([
      { case: "case-3", baseline: "fail", current: "pass", scorers: ["a"], withinNoise: true },
    ]); // kept for callers of fixes
    const text = formatComparison(noise);
    expect(text.split("\n")[0]).toBe(
      "Compared with the baseline: 0 regression(s), 0 fix(es), 1 changed within noise, 0 added, 0 removed",
    );
    expect(text).toContain("  changed within noise case-3: fail → pass (a)");
    expect(text).not.toMatch(/^ {2}fixed /m);
    const html = reportOf(grid(4)).toHtml({ baseline: reportOf(grid(3)) });
    expect(html).toContain("<p>0 regression(s), 0 fix(es), 1 changed within noise, 0 added, 0 removed.</p>");
    expect(html).toContain("<b>Changed within noise</b>: case-3: fail → pass (a)");
    expect(html).not.toContain("<b>Fixed</b>");

    const fixed = compareReports(reportOf(grid(2)), reportOf(grid(14)));
    expect(fixed.fixes).toHaveLength(12);
    expect(fixed.fixes.every((c) => !c.withinNoise)).toBe(true);
    expect(formatComparison(fixed)).toMatch(
      /^Compared with the baseline: 0 regression\(s\), 12 fix\(es\), 0 changed within noise, 0 added, 0 removed\n {2}fixed case-2 \(a\)\n/,
    );
    expect(reportOf(grid(14)).toHtml({ baseline: reportOf(grid(2)) })).toContain(
      "<b>Fixed</b>: case-2 (a), case-3 (a)",
    );
    const regressed = compareReports(reportOf(grid(14)), reportOf(grid(2)));
    expect(regressed.regressions.map((c) => c.withinNoise)).toEqual(Array(12).fill(false));
    expect(formatComparison(regressed)).toMatch(
      /^Compared with the baseline: 12 regression\(s\), 0 fix\(es\), 0 changed within noise, 0 added, 0 removed\n {2}regressed case-2 \(a\)\n/,
    );
  });

  it("CaseChange.withinNoise follows the direction: a case fixed on a scorer whose pass rate got significantly worse is within noise", () => {
    // case-0 fails then passes on "a"; cases 1-13 pass then fail: "a" is significantly worse.
    const baseline = reportOf(
      Object.fromEntries(
        Array.from({ length: 14 }, (_, i) => [`case-${i}`, [[i === 0 ? "fail" : "pass", "pass"] as Cell[]]]),
      ),
    );
    const current = reportOf(
      Object.fromEntries(
        Array.from({ length: 14 }, (_, i) => [`case-${i}`, [[i === 0 ? "pass" : "fail", "pass"] as Cell[]]]),
      ),
    );
    const comparison = compareReports(baseline, current);
    expect(comparison.scorers[0]).toMatchObject({ scorer: "a", verdict: "worse" });
    expect(comparison.fixes).toEqual([expect.objectContaining({ case: "case-0", withinNoise: true })]);
    expect(comparison.regressions.every((c) => !c.withinNoise)).toBe(true);
    expect(formatComparison(comparison).split("\n")[0]).toBe(
      "Compared with the baseline: 13 regression(s), 0 fix(es), 1 changed within noise, 0 added, 0 removed",
    );
  });

  it("a case that passed in the baseline and fails one of k trials now is a regression; one that only errored is not compared", () => {
    const baseline = reportOf({
      flaky: [
        ["pass", "pass"],
        ["pass", "pass"],
      ],
      down: [
        ["pass", "pass"],
        ["pass", "pass"],
      ],
    });
    const current = reportOf({
      flaky: [
        ["pass", "pass"],
        ["fail", "pass"],
      ],
      down: [
        ["infra", "infra"],
        ["infra", "infra"],
      ],
    });
    const comparison = compareReports(baseline, current);
    expect(comparison.regressions.map((c) => c.case)).toEqual(["flaky"]);
    expect(comparison.unchanged).toEqual(["down"]);
  });
});

describe("report.assertPassed()", () => {
  it("passes when every judged row passed and nothing errored", () => {
    expect(() => reportOf({ one: [["pass", "n/a"]] }).assertPassed()).not.toThrow();
  });

  it("throws an EvalAssertionError whose message says why and lists each failure with its evidence", () => {
    const report = reportOf({ one: [["pass", "pass"]], two: [["fail", "pass"]] });
    expect(() => report.assertPassed()).toThrow(EvalAssertionError);
    expect(() => report.assertPassed()).toThrow(
      'Eval of agent "coach" did not pass: pass rate 75% (3 of 4) is below 100%.\nFailures (1):\n  x two (trial 1) a: required tool not called\n      tool calls: none\n      reply: "ok"',
    );
    expect(() => report.assertPassed({ minPassRate: 0.75 })).not.toThrow();
  });

  it("fails on scorer errors and infrastructure errors even when the pass rate is met, and on nothing judged", () => {
    expect(() => reportOf({ one: [["pass", "error"]] }).assertPassed()).toThrow(
      /1 scorer error\(s\)\.\nScorer errors \(1\):\n {2}! one \(trial 1\) b: TypeError: boom/,
    );
    expect(() => reportOf({ one: [["pass", "pass"]], two: [["infra", "infra"]] }).assertPassed()).toThrow(
      /1 run\(s\) did not complete \(infrastructure errors\)[\s\S]*! two \(trial 1, wf-two-1\): ModelApiError: 401/,
    );
    expect(() => reportOf({ one: [["n/a", "n/a"]] }).assertPassed()).toThrow(/no scorer judged any case/);
    expect(reportOf({ one: [["pass", "pass"]], two: [["infra", "infra"]] }).check().exitCode).toBe(2);
    expect(reportOf({ one: [["fail", "pass"]] }).check().exitCode).toBe(1);
  });
});
