/**
 * An AES-256-GCM `PayloadCodec`: every payload (the message content, tool inputs and outputs,
 * results, stream batches, summaries) is encrypted before it leaves the process and decrypted
 * when it comes back. The key id is written in the payload's metadata, so keys can be rotated:
 * new payloads use the current key, and older ones are decrypted with the key they name.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { Payload, PayloadCodec } from "@temporalio/common";
import { PayloadCodecError } from "../errors.js";
import type { CodecKeyring } from "./codec-keys.js";
import { loadTemporalProto } from "../run-reads/index.js";

/** Temporal's protobuf `Payload` message, loaded on the first encode or decode (not when the root is imported). */
const payloadProto = async () => (await loadTemporalProto()).temporal.api.common.v1.Payload;

/** The `encoding` of an encrypted payload, as in Temporal's encryption samples. */
export const ENCRYPTED_ENCODING = "binary/encrypted";
/** Metadata key naming the key that encrypted the payload. */
export const KEY_ID_METADATA = "encryption-key-id";
/** Metadata key naming the cipher, so a later cipher can be told apart. */
export const CIPHER_METADATA = "encryption-cipher";
const CIPHER = "aes-256-gcm";
const IV_BYTES = 12;
const TAG_BYTES = 16;

const utf8 = new TextEncoder();
const text = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString("utf8") : undefined);

/**
 * Encrypts each payload whole (its metadata and data, as protobuf) with the keyring's current key.
 * The data is `iv (12 bytes) ‖ ciphertext ‖ GCM tag (16 bytes)`; the key id is also authenticated
 * (as GCM additional data), so a payload cannot be relabelled to another key.
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  constructor(readonly keyring: CodecKeyring) {}

  /** Encrypts every payload with the keyring's current key, naming the key id in its metadata. */
  async encode(payloads: Payload[]): Promise<Payload[]> {
    const keyId = this.keyring.encryptKeyId;
    const key = this.keyring.keys.get(keyId)!;
    const PayloadProto = await payloadProto();
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(CIPHER, key, iv);
      cipher.setAAD(utf8.encode(keyId));
      const plain = PayloadProto.encode(payload).finish();
      const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: {
          encoding: utf8.encode(ENCRYPTED_ENCODING),
          [KEY_ID_METADATA]: utf8.encode(keyId),
          [CIPHER_METADATA]: utf8.encode(CIPHER),
        },
        data: new Uint8Array(data),
      };
    });
  }

  /** Decrypts encrypted payloads; others (written before encryption was turned on) pass through unchanged. */
  async decode(payloads: Payload[]): Promise<Payload[]> {
    const PayloadProto = await payloadProto();
    return payloads.map((payload) => {
      if (text(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return payload;
      const keyId = text(payload.metadata?.[KEY_ID_METADATA]);
      if (!keyId)
        throw new PayloadCodecError(`an encrypted payload names no key (metadata "${KEY_ID_METADATA}" is missing).`);
      const key = this.keyring.keys.get(keyId);
      if (!key) {
        throw new PayloadCodecError(
          `a payload was encrypted with key "${keyId}", which this process does not have (it has ${[...this.keyring.keys.keys()].join(", ")}); ` +
            `after a rotation keep the old key in DURABLE_AGENT_CODEC_KEYS until no run needs it.`,
          keyId,
        );
      }
      const data = payload.data ?? new Uint8Array();
      if (data.length < IV_BYTES + TAG_BYTES)
        throw new PayloadCodecError(`an encrypted payload is too short to be one (${data.length} bytes).`, keyId);
      try {
        const decipher = createDecipheriv(CIPHER, key, data.subarray(0, IV_BYTES));
        decipher.setAAD(utf8.encode(keyId));
        decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
        const plain = Buffer.concat([
          decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
          decipher.final(),
        ]);
        return PayloadProto.decode(plain) as Payload;
      } catch {
        throw new PayloadCodecError(
          `a payload could not be decrypted with key "${keyId}": the key is wrong or the payload was altered.`,
          keyId,
        );
      }
    });
  }
}
