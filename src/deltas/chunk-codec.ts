/**
 * Values as Redis holds them (answer chunks, durable events): the value through the data converter
 * (its payload converter, then its codecs: an encrypting codec keeps the text out of Redis), the
 * resulting payload as JSON with base64 bytes. The worker (or a run's reading process) encodes
 * with its converter, a watcher decodes with its client's, as they do the heartbeat details.
 */
import type { LoadedDataConverter, Payload } from "@temporalio/common";
import type { PartialAnswer } from "../core/run-events.js";
import { loadPayloadDecoding } from "../run-reads/index.js";
import { isPartialAnswer } from "../core/run-events.js";

/** A payload as JSON: metadata values and data in base64. */
interface StoredPayload {
  m: Record<string, string>;
  d: string;
}

const base64 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString("base64");
const bytes = (text: string) => new Uint8Array(Buffer.from(text, "base64"));

/** A value encoded for Redis. */
export async function encodeValue(converter: LoadedDataConverter, value: unknown): Promise<string> {
  const { encode } = await loadPayloadDecoding();
  const [payload] = await encode(converter.payloadCodecs, [converter.payloadConverter.toPayload(value)]);
  const metadata = Object.entries(payload!.metadata ?? {}).map(([key, value]) => [key, base64(value)]);
  return JSON.stringify({ m: Object.fromEntries(metadata), d: base64(payload!.data) } satisfies StoredPayload);
}

/** A value read from Redis, or undefined for one that another converter wrote (or that is not a payload). */
export async function decodeValue(converter: LoadedDataConverter, stored: string): Promise<unknown> {
  try {
    const { decode } = await loadPayloadDecoding();
    const { m, d } = JSON.parse(stored) as StoredPayload;
    const payload: Payload = {
      metadata: Object.fromEntries(Object.entries(m).map(([key, value]) => [key, bytes(value)])),
      data: bytes(d),
    };
    const [decoded] = await decode(converter.payloadCodecs, [payload]);
    return converter.payloadConverter.fromPayload<unknown>(decoded!);
  } catch {
    return undefined;
  }
}

/** A chunk of an answer, encoded for Redis. */
export function encodeChunk(converter: LoadedDataConverter, chunk: PartialAnswer): Promise<string> {
  return encodeValue(converter, chunk);
}

/** A chunk read from Redis, or undefined for one that is not (another converter's, or not a chunk). */
export async function decodeChunk(converter: LoadedDataConverter, stored: string): Promise<PartialAnswer | undefined> {
  const chunk = await decodeValue(converter, stored);
  return isPartialAnswer(chunk) ? chunk : undefined;
}
