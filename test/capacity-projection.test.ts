import { describe, expect, it } from "vitest";
import { actionCostUsd, DEFAULT_ASSUMPTIONS, projectFleet, type ChatFigures } from "../bench/capacity/projection.js";
import { parseActions } from "../bench/capacity/counters.js";

describe("bench:capacity's projection", () => {
  it("prices actions tier by tier, as Temporal Cloud's pricing page works its example", () => {
    // The pricing page's example: 11.25M actions = 5M × $50 + 5M × $45 + 1.25M × $40 = $525.
    expect(actionCostUsd(11_250_000)).toBeCloseTo(525, 6);
    expect(actionCostUsd(4_000_000)).toBeCloseTo(200, 6);
    expect(actionCostUsd(0)).toBe(0);
    // Over 200M, priced at the last published tier ($25 a million).
    expect(actionCostUsd(300_000_000)).toBeCloseTo(250 + 225 + 400 + 1050 + 1500 + 2500 + 2500, 6);
  });

  it("scales the fleet linearly with the per-chat figures and names its Cloud total", () => {
    const figures: ChatFigures = {
      actions: 50,
      historyBytes: 25_000,
      workerCpuMs: 300,
      workerMiBPerChatInFlight: 0.5,
      frontendRequests: 150,
    };
    const row = (rows: ReturnType<typeof projectFleet>, what: string) => rows.find((r) => r.what === what)!.value;
    const one = projectFleet(figures);
    const two = projectFleet({ ...figures, workerCpuMs: 600 });
    expect(row(two, "worker cores at peak")).toBeCloseTo(2 * row(one, "worker cores at peak"), 6);
    const peak = (DEFAULT_ASSUMPTIONS.chatsPerDay / 86_400) * DEFAULT_ASSUMPTIONS.peakToMean;
    expect(row(one, "Temporal actions a second at peak")).toBeCloseTo(peak * 50, 6);
    expect(row(one, "Temporal actions a month")).toBeCloseTo(1500, 6); // 50 × 1M × 30, in millions
    const total = row(one, "Temporal Cloud: total");
    const parts = ["Temporal Cloud: actions", "Temporal Cloud: storage", "Temporal Cloud: plan (Business)"].map((w) =>
      row(one, w),
    );
    expect(total).toBeCloseTo(
      parts.reduce((a, b) => a + b, 0),
      6,
    );
  });
});

describe("bench:capacity's counters", () => {
  it("reads one namespace's billable actions by type from the server's Prometheus text", () => {
    const text = [
      'action{action_type="command_ScheduleActivityTask",namespace="default",operation="RespondWorkflowTaskCompleted",service_name="frontend"} 9',
      'action{action_type="grpc_StartWorkflowExecution",namespace="default",operation="StartWorkflowExecution",service_name="frontend"} 1',
      'action{action_type="grpc_StartWorkflowExecution",namespace="temporal_system",operation="StartWorkflowExecution",service_name="frontend"} 2',
      "# HELP action_other not this one",
    ].join("\n");
    expect(parseActions(text, "default")).toEqual({ command_ScheduleActivityTask: 9, grpc_StartWorkflowExecution: 1 });
  });
});
