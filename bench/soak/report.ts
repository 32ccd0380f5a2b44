/** The soak's report: `bench-results/soak.json` and the same figures as a table. */
import type { Verdict, Violation } from "./checker.js";
import type { Fault, FaultKind } from "./faults.js";
import { RESUME_GOAL_MS, type KillToResume, type ResumeFigure } from "./resume.js";

/** `bench-results/soak.json`. */
export interface SoakReport {
  seed: number;
  minutes: number;
  runs: number;
  completed: number;
  lost: number;
  stuck: number;
  duplicateEffects: number;
  /** Ledger rows (executions) per distinct idempotency key (effects). */
  executionsPerEffect: number;
  faults: Partial<Record<FaultKind, number>>;
  /** From each fault's injection to the first run that completed after it was repaired, by kind. */
  recoveryMs: Partial<Record<FaultKind, { p50: number; p95: number }>>;
  /** From each worker kill to the cut model call's retry, and to a watcher's next delta (goal: within 5 s). */
  killToResumeMs: KillToResume;
  violations: Violation[];
  /** Figures beyond the interface: effects, executions, tokens, model faults dealt, durations, the scenario mix. */
  details: Record<string, unknown>;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Each fault's recovery: from its injection to the first run end after its repair. */
export function recoveries(faults: Fault[], runEnds: number[]): SoakReport["recoveryMs"] {
  const ends = [...runEnds].sort((a, b) => a - b);
  const byKind = new Map<FaultKind, number[]>();
  for (const fault of faults) {
    if (fault.injectedMs === undefined || fault.repairedMs === undefined) continue;
    const next = ends.find((t) => t >= fault.repairedMs!);
    if (next === undefined) continue;
    byKind.set(fault.kind, [...(byKind.get(fault.kind) ?? []), next - fault.injectedMs]);
  }
  return Object.fromEntries(
    [...byKind].map(([kind, ms]) => {
      const sorted = ms.sort((a, b) => a - b);
      return [kind, { p50: percentile(sorted, 50), p95: percentile(sorted, 95) }];
    }),
  );
}

export function buildReport(
  options: { seed: number; minutes: number; runs: number },
  verdict: Verdict,
  faults: Fault[],
  runEnds: number[],
  killToResumeMs: KillToResume,
  details: Record<string, unknown>,
): SoakReport {
  const counts: Partial<Record<FaultKind, number>> = {};
  for (const fault of faults) if (fault.injectedMs !== undefined) counts[fault.kind] = (counts[fault.kind] ?? 0) + 1;
  return {
    ...options,
    completed: verdict.completed,
    lost: verdict.lost,
    stuck: verdict.stuck,
    duplicateEffects: verdict.duplicateEffects,
    executionsPerEffect: verdict.effects ? Number((verdict.executions / verdict.effects).toFixed(3)) : 0,
    faults: counts,
    recoveryMs: recoveries(faults, runEnds),
    killToResumeMs,
    violations: verdict.violations,
    details: { effects: verdict.effects, executions: verdict.executions, tokens: verdict.tokens, ...details },
  };
}

/** The report as a plain-text table. */
export function formatReport(report: SoakReport): string {
  const rows: Array<[string, string]> = [
    ["seed", String(report.seed)],
    ["minutes", String(report.minutes)],
    ["runs", String(report.runs)],
    ["completed", String(report.completed)],
    ["lost", String(report.lost)],
    ["stuck", String(report.stuck)],
    ["duplicateEffects", String(report.duplicateEffects)],
    [
      "executionsPerEffect",
      `${report.executionsPerEffect} (${String(report.details.executions)} executions / ${String(report.details.effects)} effects)`,
    ],
    ["violations", String(report.violations.length)],
  ];
  const memory = report.details.memory as
    { search: string; runs: number; turns: number; stored: number; duplicates: number; lostTurns: number } | undefined;
  if (memory)
    rows.splice(rows.length - 1, 0, [
      "memory",
      `${memory.runs} runs with a user, ${memory.turns} turns, ${memory.stored} messages stored, ` +
        `${memory.duplicates} twice, ${memory.lostTurns} turns lost (${memory.search} search)`,
    ]);
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`);
  lines.push("", "  fault              count   recovery p50   p95");
  for (const [kind, count] of Object.entries(report.faults)) {
    const r = report.recoveryMs[kind as FaultKind];
    lines.push(
      `  ${kind.padEnd(18)} ${String(count).padStart(5)}   ${r ? `${(r.p50 / 1000).toFixed(1)} s`.padStart(12) : "           -"}   ${r ? `${(r.p95 / 1000).toFixed(1)} s` : "-"}`,
    );
  }
  const resume = report.killToResumeMs;
  lines.push(
    "",
    `  worker kills: ${resume.kills}, model calls they cut: ${resume.cutCalls} (${resume.notRetried} not asked again); goal: on within ${RESUME_GOAL_MS / 1000} s`,
    `  kill -> the call asked again   ${resumeLine(resume.retried)}`,
    `  kill -> a watcher's next delta ${resumeLine(resume.nextDelta)}`,
  );
  if (report.violations.length) {
    lines.push("", "  violations:");
    for (const v of report.violations.slice(0, 50)) lines.push(`    [${v.check}] ${v.run ?? ""} ${v.detail}`);
    if (report.violations.length > 50) lines.push(`    … ${report.violations.length - 50} more in the JSON`);
  }
  return lines.join("\n");
}

/** "p50 3.6 s, max 4.4 s over 5 (goal met)", or "no samples". */
function resumeLine(figure: ResumeFigure): string {
  if (figure.p50 === null || figure.max === null) return "no samples";
  const met = figure.max <= RESUME_GOAL_MS ? "every one within the goal" : "NOT every one within the goal";
  return `p50 ${(figure.p50 / 1000).toFixed(1)} s, max ${(figure.max / 1000).toFixed(1)} s over ${figure.samples} (${met})`;
}
