/** The data converter that turns payload encryption on for clients and workers. */
import type { DataConverter } from "@temporalio/common";
import { AesGcmPayloadCodec } from "./aes-gcm-codec.js";
import { codecKeysFromEnv, type CodecKeyring } from "./codec-keys.js";

/** A data converter whose payloads are encrypted with AES-256-GCM under the keyring's current key. */
export function encryptedDataConverter(keyring: CodecKeyring): DataConverter {
  return { payloadCodecs: [new AesGcmPayloadCodec(keyring)] };
}

/** Encryption from `DURABLE_AGENT_CODEC_KEYS` / `DURABLE_AGENT_CODEC_KEY_ID`, or undefined when they are not set. */
export function dataConverterFromEnv(env: NodeJS.ProcessEnv = process.env): DataConverter | undefined {
  const keyring = codecKeysFromEnv(env);
  return keyring ? encryptedDataConverter(keyring) : undefined;
}
