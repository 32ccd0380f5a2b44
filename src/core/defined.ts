/** Optional fields without conditional spreads. Workflow-safe. */

/** `T` with its possibly-undefined fields optional and never `undefined`. */
export type Defined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/**
 * The fields of `fields` whose value is not `undefined`: `{ ...defined({ context, budget }) }`
 * instead of `...(context !== undefined ? { context } : {}), ...(budget !== undefined ? { budget } : {})`,
 * so an object never carries a key whose value is `undefined` (a payload, a trace entry, `in` checks).
 */
export function defined<T extends object>(fields: T): Defined<T> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out as Defined<T>;
}
