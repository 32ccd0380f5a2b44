/** `EvalReport`: the report's data (the JSON of `docs/eval-report-schema.md`) with its views and its gate. */
import { z } from "zod";
import { assertPassed, checkReport, describeProblems, type GateResult, type PassCriteria } from "./assert-passed.js";
import { compareReports, type ReportComparison } from "./compare-reports.js";
import { EvalReportFormatError } from "./errors.js";
import { formatTable } from "./format-table.js";
import { toJUnitXml } from "./junit.js";
import { toHtmlReport, type HtmlReportOptions } from "./report-html.js";
import {
  EVAL_REPORT_SCHEMA_VERSION,
  evalReportSchema,
  type CaseSummary,
  type EvalReportData,
  type EvalRow,
  type EvalRun,
  type EvalTotals,
  type ScorerSummary,
} from "./report-schema.js";
import { defined } from "../core/defined.js";

/** What `agent.eval()` resolves to. `JSON.stringify(report)` is the documented JSON report. */
export class EvalReport implements EvalReportData {
  readonly schemaVersion: typeof EVAL_REPORT_SCHEMA_VERSION;
  readonly agent: string;
  /** `agent.version` of the definition evaluated (absent in reports written before versions). */
  readonly agentVersion?: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  readonly trials: number;
  /** Per case: outcomes per trial, pass@1, pass^k, flaky. */
  readonly cases: CaseSummary[];
  /** Per scorer: counts and pass rate. */
  readonly scorers: ScorerSummary[];
  readonly totals: EvalTotals;
  /** Per case x trial: the run, or the infrastructure error that stopped it. */
  readonly runs: EvalRun[];
  /** Per case x trial x scorer: status, failure message, evidence. */
  readonly rows: EvalRow[];

  constructor(data: EvalReportData) {
    this.schemaVersion = data.schemaVersion;
    this.agent = data.agent;
    if (data.agentVersion !== undefined) this.agentVersion = data.agentVersion;
    this.startedAt = data.startedAt;
    this.finishedAt = data.finishedAt;
    this.durationMs = data.durationMs;
    this.trials = data.trials;
    this.cases = data.cases;
    this.scorers = data.scorers;
    this.totals = data.totals;
    this.runs = data.runs;
    this.rows = data.rows;
  }

  /** The report's data, as written to a JSON report. */
  toJSON(): EvalReportData {
    const {
      schemaVersion,
      agent,
      agentVersion,
      startedAt,
      finishedAt,
      durationMs,
      trials,
      cases,
      scorers,
      totals,
      runs,
      rows,
    } = this;
    return {
      schemaVersion,
      agent,
      ...defined({ agentVersion }),
      startedAt,
      finishedAt,
      durationMs,
      trials,
      cases,
      scorers,
      totals,
      runs,
      rows,
    };
  }

  /** A terminal table: a line per case and trial, a column per scorer, pass rates, pass@1 and pass^k. */
  toTable(): string {
    return formatTable(this);
  }

  /** One self-contained HTML page (no network): pass rates with intervals, cases, changes against `baseline`, and each failing row's conversation. */
  toHtml(options?: HtmlReportOptions): string {
    return toHtmlReport(this, options);
  }

  /** JUnit XML for CI. */
  toJUnit(): string {
    return toJUnitXml(this);
  }

  /** Every failure with its evidence, every scorer error and infrastructure error, as readable text. */
  describeProblems(): string {
    return describeProblems(this);
  }

  /** The gate: passed, the CLI's exit code, and why not. */
  check(criteria?: PassCriteria): GateResult {
    return checkReport(this, criteria);
  }

  /** Throws an `EvalAssertionError` with a readable summary unless every judged row passed (or `minPassRate` is met) and nothing errored. */
  assertPassed(criteria?: PassCriteria): void {
    assertPassed(this, criteria);
  }

  /** Regressions and fixes since the baseline, by case name. */
  compareWith(baseline: EvalReportData): ReportComparison {
    return compareReports(baseline, this);
  }
}

/** Reads a JSON report (for example a baseline file); throws `EvalReportFormatError` if it is not one of this schema version. */
export function parseReport(json: string | unknown): EvalReport {
  let data: unknown = json;
  if (typeof json === "string") {
    try {
      data = JSON.parse(json);
    } catch (error) {
      throw new EvalReportFormatError(`Not a JSON report: ${(error as Error).message}`);
    }
  }
  const version = (data as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (version !== EVAL_REPORT_SCHEMA_VERSION)
    throw new EvalReportFormatError(
      `Unsupported eval report schemaVersion ${JSON.stringify(version)}; this version reads ${EVAL_REPORT_SCHEMA_VERSION}.`,
    );
  const parsed = evalReportSchema.safeParse(data);
  if (!parsed.success)
    throw new EvalReportFormatError(`Not a valid eval report: ${z.prettifyError(parsed.error).replace(/\n/g, "; ")}`);
  return new EvalReport(parsed.data);
}
