/**
 * The check a worker with `searchAttributes: true` makes at its start: one `ListSearchAttributes`
 * call, compared with `SEARCH_ATTRIBUTES` by name and type. Without it, a namespace that lacks one
 * (registered for an older release) shows only on the server: each run's upsert fails its workflow
 * task, over and over, and the run stalls.
 */
import type { Logger } from "@temporalio/common";
import {
  encodeSearchAttributeIndexedValueType,
  SearchAttributeType,
  TypedSearchAttributes,
} from "@temporalio/common/lib/search-attributes.js";
import type { NativeConnection } from "@temporalio/worker";
import { SEARCH_ATTRIBUTES } from "./core/search-attributes.js";
import {
  SearchAttributesNotRegisteredError,
  type MistypedSearchAttribute,
  type SearchAttributeSpec,
} from "./errors.js";

/** gRPC statuses of a server that will not list search attributes to this caller (a Temporal Cloud API key without the role, a proxy): the check is skipped. */
const NOT_ALLOWED = new Map([
  [7, "PERMISSION_DENIED"],
  [12, "UNIMPLEMENTED"],
]);

/**
 * Resolves when `namespace` has every attribute of `SEARCH_ATTRIBUTES` with its type; rejects with
 * a `SearchAttributesNotRegisteredError` naming the missing and mistyped ones. When the server
 * does not let this caller list them, warns once on `logger` and resolves: the worker starts
 * unchecked. Any other failure of the call rejects with it.
 */
export async function checkSearchAttributes(
  connection: NativeConnection,
  namespace: string,
  logger: Pick<Logger, "warn">,
): Promise<void> {
  let registered: Record<string, number>;
  try {
    registered = (await connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
  } catch (error) {
    const status = NOT_ALLOWED.get((error as { code?: unknown }).code as number);
    if (status === undefined) throw error;
    logger.warn(
      `durable-agent: skipped the check that namespace "${namespace}" has the search attributes runs set ` +
        `(searchAttributes: true): the server refused to list them (${status}: ${(error as Error).message}). ` +
        `A missing one stalls every run; see docs/operating-runs.md.`,
      { namespace, status },
    );
    return;
  }
  const missing: SearchAttributeSpec[] = [];
  const wrongType: MistypedSearchAttribute[] = [];
  for (const { name, type } of Object.values(SEARCH_ATTRIBUTES)) {
    const spec = { name, type: TypedSearchAttributes.toMetadataType(type) };
    const found = registered[name];
    if (found === undefined) missing.push(spec);
    else if (found !== encodeSearchAttributeIndexedValueType(type))
      wrongType.push({ ...spec, registered: typeName(found) });
  }
  if (missing.length || wrongType.length) throw new SearchAttributesNotRegisteredError(namespace, missing, wrongType);
}

/** A registered attribute's type as the `temporal` CLI names it (`Keyword`, `Int`, ...). */
function typeName(indexedValueType: number): string {
  const type = Object.values(SearchAttributeType).find(
    (t) => encodeSearchAttributeIndexedValueType(t) === indexedValueType,
  );
  return type ? TypedSearchAttributes.toMetadataType(type) : `an unknown type (${indexedValueType})`;
}
