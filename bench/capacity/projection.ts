/**
 * The capacity model: from per-chat figures this project measures (`npm run bench:capacity`), what
 * a fleet needs for a given number of chats a day, and what its Temporal Cloud bill would be at the
 * published pay-as-you-go prices. Everything here is a projection: arithmetic over measured
 * figures and the assumptions below, each named.
 */

/** Per-chat figures, as `npm run bench:capacity` measures them. */
export interface ChatFigures {
  /** Temporal Cloud billable actions per chat (the server's own `action` counter). */
  actions: number;
  /** History bytes per chat, summed over its continue-as-new chain. */
  historyBytes: number;
  /** Worker CPU milliseconds per chat (user + system). */
  workerCpuMs: number;
  /** Worker memory per chat in flight, MiB (resident peak over idle, over the chats in flight). */
  workerMiBPerChatInFlight: number;
  /** Frontend requests per chat (worker, client and watchers together). */
  frontendRequests: number;
  /** Redis bytes out per watcher of a chat (deltas through Redis), if measured. */
  redisBytesPerWatcher?: number;
  /** PostgreSQL rows written per chat on the stack, if measured. */
  postgresRowsPerChat?: number;
}

/** What the projection assumes beyond the measurements. */
export interface Assumptions {
  chatsPerDay: number;
  /** The busiest hour's rate over the day's mean. */
  peakToMean: number;
  /** Seconds a chat is in flight with a real model (its trips' model time). */
  chatSecondsInFlight: number;
  /** Hours a chat's session stays open (active storage) before it ends. */
  sessionOpenHours: number;
  /** Namespace retention, days (retained storage). */
  retentionDays: number;
  /** The CPU share a worker core is run at, at peak. */
  cpuUtilisation: number;
  /** Watchers per chat (tabs, devices). */
  watchersPerChat: number;
}

export const DEFAULT_ASSUMPTIONS: Assumptions = {
  chatsPerDay: 1_000_000,
  peakToMean: 3,
  chatSecondsInFlight: 3 * 2 * 4, // three messages of two trips, 4 s of model time a trip
  sessionOpenHours: 1,
  retentionDays: 7,
  cpuUtilisation: 0.6,
  watchersPerChat: 1,
};

/** Temporal Cloud's pay-as-you-go action tiers (Business and above): up to `upTo` million actions a month, at `usdPerMillion`. */
export const ACTION_TIERS: readonly { upTo: number; usdPerMillion: number }[] = [
  { upTo: 5, usdPerMillion: 50 },
  { upTo: 10, usdPerMillion: 45 },
  { upTo: 20, usdPerMillion: 40 },
  { upTo: 50, usdPerMillion: 35 },
  { upTo: 100, usdPerMillion: 30 },
  { upTo: 200, usdPerMillion: 25 },
  { upTo: Infinity, usdPerMillion: 25 }, // over 200M: "contact sales"; priced here at the last published tier
];
/** Storage, USD per GB-hour: active (open workflows) and retained (closed, within retention). */
export const ACTIVE_USD_PER_GBH = 0.042;
export const RETAINED_USD_PER_GBH = 0.00105;
/** Business plan: the greater of $500 a month or 10% of usage. */
export const PLAN_MINIMUM_USD = 500;
export const PLAN_SHARE = 0.1;
const HOURS_PER_MONTH = 730;
const DAYS_PER_MONTH = 30;

/** The action charge of a month's actions, tier by tier. */
export function actionCostUsd(actionsPerMonth: number): number {
  let cost = 0;
  let from = 0;
  const millions = actionsPerMonth / 1e6;
  for (const tier of ACTION_TIERS) {
    if (millions <= from) break;
    cost += (Math.min(millions, tier.upTo) - from) * tier.usdPerMillion;
    from = tier.upTo;
  }
  return cost;
}

/** One line of the projection: what, how much, and how it was derived. */
export interface ProjectionRow {
  what: string;
  value: number;
  unit: string;
  how: string;
}

/** The fleet and the monthly bill for `a.chatsPerDay` chats a day. */
export function projectFleet(f: ChatFigures, a: Assumptions = DEFAULT_ASSUMPTIONS): ProjectionRow[] {
  const meanRate = a.chatsPerDay / 86_400;
  const peakRate = meanRate * a.peakToMean;
  const inFlightAtPeak = peakRate * a.chatSecondsInFlight;
  const cores = (peakRate * f.workerCpuMs) / 1000 / a.cpuUtilisation;
  const actionsPerMonth = f.actions * a.chatsPerDay * DAYS_PER_MONTH;
  const gb = f.historyBytes / 1e9;
  const activeGbh = gb * (a.chatsPerDay / 24) * a.sessionOpenHours * HOURS_PER_MONTH;
  const retainedGbh = gb * a.chatsPerDay * a.retentionDays * HOURS_PER_MONTH;
  const usage = actionCostUsd(actionsPerMonth) + activeGbh * ACTIVE_USD_PER_GBH + retainedGbh * RETAINED_USD_PER_GBH;
  const plan = Math.max(PLAN_MINIMUM_USD, PLAN_SHARE * usage);
  const rows: ProjectionRow[] = [
    {
      what: "chats a second, mean / peak",
      value: peakRate,
      unit: "chats/s at peak",
      how: `${meanRate.toFixed(1)}/s mean × ${a.peakToMean}`,
    },
    {
      what: "worker cores at peak",
      value: cores,
      unit: "cores",
      how: `peak rate × ${f.workerCpuMs.toFixed(1)} CPU-ms a chat ÷ ${a.cpuUtilisation}`,
    },
    {
      what: "worker memory at peak",
      value: (inFlightAtPeak * f.workerMiBPerChatInFlight) / 1024,
      unit: "GiB",
      how: `${Math.round(inFlightAtPeak)} chats in flight (${a.chatSecondsInFlight} s each) × MiB a chat in flight`,
    },
    {
      what: "frontend requests at peak",
      value: peakRate * f.frontendRequests,
      unit: "RPS",
      how: "peak rate × requests a chat",
    },
    {
      what: "Temporal actions a second at peak",
      value: peakRate * f.actions,
      unit: "APS",
      how: "peak rate × actions a chat",
    },
    {
      what: "Temporal actions a month",
      value: actionsPerMonth / 1e6,
      unit: "million",
      how: `actions a chat × chats a day × ${DAYS_PER_MONTH}`,
    },
    { what: "history written a day", value: gb * a.chatsPerDay, unit: "GB", how: "history bytes a chat × chats a day" },
    { what: "active storage a month", value: activeGbh, unit: "GBh", how: `sessions open ${a.sessionOpenHours} h` },
    { what: "retained storage a month", value: retainedGbh, unit: "GBh", how: `${a.retentionDays} days' retention` },
    {
      what: "Temporal Cloud: actions",
      value: actionCostUsd(actionsPerMonth),
      unit: "USD/month",
      how: "pay-as-you-go tiers",
    },
    {
      what: "Temporal Cloud: storage",
      value: activeGbh * ACTIVE_USD_PER_GBH + retainedGbh * RETAINED_USD_PER_GBH,
      unit: "USD/month",
      how: `$${ACTIVE_USD_PER_GBH}/GBh active, $${RETAINED_USD_PER_GBH}/GBh retained`,
    },
    {
      what: "Temporal Cloud: plan (Business)",
      value: plan,
      unit: "USD/month",
      how: `greater of $${PLAN_MINIMUM_USD} or ${PLAN_SHARE * 100}% of usage`,
    },
    { what: "Temporal Cloud: total", value: usage + plan, unit: "USD/month", how: "actions + storage + plan" },
  ];
  if (f.redisBytesPerWatcher !== undefined)
    rows.push({
      what: "Redis egress at peak",
      value: (peakRate * a.watchersPerChat * f.redisBytesPerWatcher) / 1e6,
      unit: "MB/s",
      how: `${a.watchersPerChat} watcher a chat × bytes a watcher`,
    });
  if (f.postgresRowsPerChat !== undefined)
    rows.push({
      what: "PostgreSQL rows written at peak (self-hosted)",
      value: peakRate * f.postgresRowsPerChat,
      unit: "rows/s",
      how: "peak rate × rows a chat (stack)",
    });
  return rows;
}
