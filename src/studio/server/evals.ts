/**
 * `/api/evals` and `/api/reports`: evals of a dataset against an agent of the module, with
 * recorded tools by default (`agent.eval({ tools: "recorded" })`), run on the studio's task
 * queue; their progress; their reports as JSON and HTML files in the data folder; and the
 * comparison of two reports (`compareReports`: intervals and significance per scorer).
 */
import { randomUUID } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Client } from "@temporalio/client";
import type { Agent } from "../../facade/define-agent.js";
import { readCases } from "../../datasets/case-file.js";
import { compareReports } from "../../eval/compare-reports.js";
import { parseReport, type EvalReport } from "../../eval/report.js";
import { toHtmlReport } from "../../eval/report-html.js";
import type { Scorer } from "../../eval/scorer.js";
import { changeClaimedWithoutToolCall } from "../../eval/scorers/change-claimed-without-tool-call.js";
import { requiredToolCalled } from "../../eval/scorers/required-tool-called.js";
import { defined } from "../../core/defined.js";
import type { CompareResponse, EvalHeading, EvalProgress, EvalRequest, EvalsResponse } from "../api-types.js";
import { datasetPath } from "./datasets.js";
import { StudioRequestError } from "./http-error.js";

interface EvalJob {
  progress: EvalProgress;
  dataset: string;
  agent: string;
  startedAt: string;
}

/** What the studio keeps beside an eval's report (the report itself does not name its dataset). */
interface ReportMeta {
  dataset: string;
}

const REPORT_ID = /^[A-Za-z0-9-]{1,64}$/;

/** The default scorers for an agent: claims without a tool call, and its `actWhenAsked` tools. */
export function defaultScorers(agent: Agent): Scorer[] {
  const act = agent.options.actWhenAsked;
  return [
    changeClaimedWithoutToolCall(),
    ...(act
      ? [requiredToolCalled({ tools: act.requiredTools, intents: act.intents, require: act.require ?? "any" })]
      : []),
  ];
}

/** The evals a studio has started, and their reports on disk. */
export class EvalJobs {
  private readonly jobs = new Map<string, EvalJob>();

  constructor(
    private readonly options: {
      client: Client;
      agents: ReadonlyMap<string, Agent>;
      taskQueue: string;
      dataDir: string;
      scorers?: readonly Scorer[];
    },
  ) {}

  private reportPath(id: string, extension: "json" | "html" | "meta.json"): string {
    if (!REPORT_ID.test(id)) throw new StudioRequestError(404, `No eval report ${JSON.stringify(id)}.`);
    return join(this.options.dataDir, "reports", `${id}.${extension}`);
  }

  /** Starts an eval; its progress is `progress(id)`. */
  async start(body: EvalRequest): Promise<string> {
    const agent = this.options.agents.get(body?.agent);
    if (!agent)
      throw new StudioRequestError(
        this.options.agents.size === 0 ? 409 : 400,
        this.options.agents.size === 0
          ? "Evals need the agents module: start the studio with it (`durable-agent studio ./agents.ts`, or `ai.studio({ agents })`)."
          : `No agent ${JSON.stringify(body?.agent)} in the module (it has ${[...this.options.agents.keys()].join(", ")}).`,
      );
    const path = datasetPath(this.options.dataDir, body.dataset);
    const cases = await readCases(path).catch((error: Error) => {
      throw new StudioRequestError(400, `Cannot read dataset ${body.dataset}: ${error.message}`);
    });
    if (cases.length === 0) throw new StudioRequestError(400, `Dataset ${body.dataset} has no cases.`);
    const id = randomUUID();
    const job: EvalJob = {
      progress: { id, done: false, total: cases.length, finished: 0 },
      dataset: body.dataset,
      agent: agent.name,
      startedAt: new Date().toISOString(),
    };
    this.jobs.set(id, job);
    void agent
      .eval({
        cases,
        scorers: [...(this.options.scorers ?? defaultScorers(agent))],
        tools: body.recordedTools === false ? "live" : "recorded",
        client: this.options.client,
        taskQueue: this.options.taskQueue,
        onCaseFinished: (progress) => {
          job.progress.finished = progress.finished;
        },
      })
      .then(
        async (report) => {
          await this.saveReport(id, report, { dataset: job.dataset });
          job.progress = { ...job.progress, done: true, finished: job.progress.total, reportUrl: `/api/reports/${id}` };
        },
        (error: Error) => {
          job.progress = { ...job.progress, done: true, error: error.message };
        },
      );
    return id;
  }

  private async saveReport(id: string, report: EvalReport, meta: ReportMeta): Promise<void> {
    await mkdir(join(this.options.dataDir, "reports"), { recursive: true });
    await writeFile(this.reportPath(id, "meta.json"), JSON.stringify(meta));
    await writeFile(this.reportPath(id, "json"), JSON.stringify(report, null, 2));
    await writeFile(this.reportPath(id, "html"), toHtmlReport(report));
  }

  /** An eval's progress; 404 for an unknown id. */
  progress(id: string): EvalProgress {
    const job = this.jobs.get(id);
    if (!job) throw new StudioRequestError(404, `No eval ${JSON.stringify(id)} in this studio.`);
    return job.progress;
  }

  /** The evals started, newest first. */
  list(): EvalsResponse {
    return {
      evals: [...this.jobs.values()]
        .reverse()
        .map((job) => ({ ...job.progress, dataset: job.dataset, agent: job.agent, startedAt: job.startedAt })),
    };
  }

  /** An eval's HTML report. */
  async html(id: string): Promise<string> {
    return readFile(this.reportPath(id, "html"), "utf8").catch(() => {
      throw new StudioRequestError(404, `No eval report ${JSON.stringify(id)}: it has not finished, or failed.`);
    });
  }

  private async report(id: string): Promise<EvalReport> {
    const text = await readFile(this.reportPath(id, "json"), "utf8").catch(() => {
      throw new StudioRequestError(404, `No eval report ${JSON.stringify(id)}: it has not finished, or failed.`);
    });
    return parseReport(text);
  }

  /** Eval `a` (the baseline) against eval `b`. */
  async compare(a: string | undefined, b: string | undefined): Promise<CompareResponse> {
    if (!a || !b) throw new StudioRequestError(400, "Name the two evals: /api/compare?a=<baseline id>&b=<id>.");
    const [baseline, current] = await Promise.all([this.report(a), this.report(b)]);
    const [headingA, headingB] = await Promise.all([this.heading(a, baseline), this.heading(b, current)]);
    return { a, b, headings: { a: headingA, b: headingB }, ...compareReports(baseline, current) };
  }

  /** What an eval ran, to head a comparison by: its dataset (kept beside the report), agent and start. */
  private async heading(id: string, report: EvalReport): Promise<EvalHeading> {
    const meta = await readFile(this.reportPath(id, "meta.json"), "utf8")
      .then((text) => JSON.parse(text) as Partial<ReportMeta>)
      .catch(() => ({}) as Partial<ReportMeta>);
    const dataset = meta.dataset ?? this.jobs.get(id)?.dataset;
    return {
      id,
      ...defined({ dataset, agentVersion: report.agentVersion }),
      agent: report.agent,
      startedAt: report.startedAt,
    };
  }
}
