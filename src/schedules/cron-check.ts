/**
 * Checks a cron expression as Temporal's server reads it, before the server is asked, so a typo
 * fails with a `ScheduleOptionsError` naming the field. The server stays the judge: what this lets
 * through and the server rejects still comes back as the same error (create-schedule.ts).
 *
 * The forms (as the server parses them): 5 fields `minute hour day-of-month month day-of-week`,
 * 6 with a `year` after them, 7 with a `second` first and a `year` last; a field is `*` or a list
 * of values and ranges with an optional `/step`; months and days may be names (JAN, MON); an
 * optional `CRON_TZ=<zone>` first and a `# comment` last; or a macro (`@daily`, `@hourly`,
 * `@every 1h30m`).
 */

interface CronField {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const SECOND: CronField = { name: "second", min: 0, max: 59 };
const MINUTE: CronField = { name: "minute", min: 0, max: 59 };
const HOUR: CronField = { name: "hour", min: 0, max: 23 };
const DAY_OF_MONTH: CronField = { name: "day of month", min: 1, max: 31 };
const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const MONTH: CronField = { name: "month", min: 1, max: 12, names: MONTHS };
const DAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];
const DAY_OF_WEEK: CronField = { name: "day of week", min: 0, max: 7, names: DAYS };
const YEAR: CronField = { name: "year", min: 2000, max: 2100 };

/** The fields of each form, by how many fields it has. */
const FORMS: Record<number, CronField[]> = {
  5: [MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK],
  6: [MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK, YEAR],
  7: [SECOND, MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK, YEAR],
};

const MACROS = new Set(["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]);
/** A Go duration, as `@every` takes it: `90s`, `1h30m`, `1.5h`. */
const GO_DURATION = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/;

/** The value of one field's item: a number in range, or (months, days) a name. */
function valueProblem(text: string, field: CronField): string | undefined {
  const upper = text.toUpperCase();
  if (field.names && field.names.some((name) => upper === name || (upper.length > 3 && upper.startsWith(name))))
    return undefined;
  if (!/^\d+$/.test(text))
    return `"${text}" is not a ${field.name}${field.names ? ` (a number or a name such as ${field.names[1]})` : ""}`;
  const value = Number(text);
  return value < field.min || value > field.max
    ? `the ${field.name} ${value} is not in ${field.min}-${field.max}`
    : undefined;
}

/** What is wrong with one field (a step such as `*\/15`, a range `1-5`, a list `MON,WED`), or undefined. */
function fieldProblem(text: string, field: CronField): string | undefined {
  for (const item of text.split(",")) {
    const [range = "", step, ...extra] = item.split("/");
    if (extra.length > 0 || (step !== undefined && !/^[1-9]\d*$/.test(step)))
      return `"${item}" has a bad step (write */15 or 1-30/5)`;
    if (range === "*") continue;
    const [from = "", to, ...more] = range.split("-");
    if (more.length > 0) return `"${range}" is not a range (write 1-5)`;
    const problem = valueProblem(from, field) ?? (to === undefined ? undefined : valueProblem(to, field));
    if (problem) return problem;
  }
  return undefined;
}

/** What is wrong with a cron expression, in words, or undefined when it reads as the server reads one. */
export function cronProblem(expression: string): string | undefined {
  let text = expression.replace(/#.*$/, "").trim();
  if (/^(CRON_TZ|TZ)=/.test(text)) text = text.replace(/^\S+\s*/, "");
  if (text === "") return "it is empty";
  if (text.startsWith("@")) {
    const [macro = "", ...rest] = text.split(/\s+/);
    if (macro === "@every") {
      const ok = rest.length >= 1 && rest.length <= 2 && rest.every((part) => GO_DURATION.test(part));
      return ok
        ? undefined
        : `@every takes a duration such as 90s or 1h30m (and an optional offset), got "${rest.join(" ")}"`;
    }
    return MACROS.has(macro) && rest.length === 0
      ? undefined
      : `"${macro}" is not a macro (use @hourly, @daily, @weekly, @monthly, @yearly or @every <duration>)`;
  }
  const fields = text.split(/\s+/);
  const form = FORMS[fields.length];
  if (!form)
    return (
      `it has ${fields.length} field(s); write 5 (minute hour day-of-month month day-of-week, e.g. "0 9 * * MON-FRI"), ` +
      `6 (with a year last) or 7 (with a second first and a year last)`
    );
  for (const [index, field] of form.entries()) {
    const problem = fieldProblem(fields[index]!, field);
    if (problem) return `${problem} (field ${index + 1}, the ${field.name})`;
  }
  return undefined;
}
