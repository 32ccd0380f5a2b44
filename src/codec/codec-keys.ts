/**
 * The payload codec's keys: AES-256 keys by id, and which one encrypts. From options or from
 * `DURABLE_AGENT_CODEC_KEYS=id1:base64key,id2:base64key` and `DURABLE_AGENT_CODEC_KEY_ID`.
 * Errors name the variable and the key id, never the key.
 */
import { PayloadCodecError } from "../errors.js";

/** Keys by id, and the id of the key new payloads are encrypted with. */
export interface CodecKeyring {
  /** Encrypts every new payload; its id is written in each payload's metadata. */
  readonly encryptKeyId: string;
  /** Every key that may decrypt: the current one and the ones rotated out, by id. */
  readonly keys: ReadonlyMap<string, Uint8Array>;
}

/** Environment variables the keyring is read from. */
export const CODEC_KEYS_VARIABLE = "DURABLE_AGENT_CODEC_KEYS";
/** The variable naming the key that encrypts (needed with several keys). */
export const CODEC_KEY_ID_VARIABLE = "DURABLE_AGENT_CODEC_KEY_ID";

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * A keyring from `id:base64key` pairs (comma-separated) and the id that encrypts. With one key the
 * id may be left out; with several it must be given, so a rotation is always a deliberate choice.
 */
export function parseCodecKeys(spec: string, encryptKeyId?: string): CodecKeyring {
  const keys = new Map<string, Uint8Array>();
  const entries = spec
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0)
    throw new PayloadCodecError(`${CODEC_KEYS_VARIABLE} holds no keys; give id:base64key pairs, comma-separated.`);
  entries.forEach((entry, index) => {
    const colon = entry.indexOf(":");
    const id = colon > 0 ? entry.slice(0, colon) : "";
    const encoded = colon > 0 ? entry.slice(colon + 1).trim() : "";
    if (!KEY_ID.test(id))
      throw new PayloadCodecError(
        `entry #${index + 1} of ${CODEC_KEYS_VARIABLE} is not id:base64key (ids are 1-64 letters, digits, ".", "_" or "-").`,
      );
    if (keys.has(id)) throw new PayloadCodecError(`key id "${id}" appears twice in ${CODEC_KEYS_VARIABLE}.`, id);
    keys.set(id, decodeKey(id, encoded));
  });
  const chosen = encryptKeyId?.trim() || (keys.size === 1 ? [...keys.keys()][0]! : undefined);
  if (!chosen)
    throw new PayloadCodecError(
      `${CODEC_KEYS_VARIABLE} has ${keys.size} keys; set ${CODEC_KEY_ID_VARIABLE} to the id that encrypts (${[...keys.keys()].join(", ")}).`,
    );
  if (!keys.has(chosen))
    throw new PayloadCodecError(
      `${CODEC_KEY_ID_VARIABLE} is "${chosen}", which is not in ${CODEC_KEYS_VARIABLE} (${[...keys.keys()].join(", ")}).`,
      chosen,
    );
  return { encryptKeyId: chosen, keys };
}

function decodeKey(id: string, encoded: string): Uint8Array {
  const bytes = BASE64.test(encoded) ? Buffer.from(encoded, "base64") : undefined;
  if (!bytes || bytes.length !== 32) {
    throw new PayloadCodecError(
      `key "${id}" must be 32 random bytes in base64 (for example \`openssl rand -base64 32\`); got ` +
        `${bytes ? `${bytes.length} bytes` : "text that is not base64"}.`,
      id,
    );
  }
  return new Uint8Array(bytes);
}

/** The keyring from the environment, or undefined when `DURABLE_AGENT_CODEC_KEYS` is not set (no encryption). */
export function codecKeysFromEnv(env: NodeJS.ProcessEnv = process.env): CodecKeyring | undefined {
  const spec = env[CODEC_KEYS_VARIABLE];
  if (spec === undefined || spec.trim() === "") {
    if (env[CODEC_KEY_ID_VARIABLE])
      throw new PayloadCodecError(`${CODEC_KEY_ID_VARIABLE} is set but ${CODEC_KEYS_VARIABLE} is not.`);
    return undefined;
  }
  return parseCodecKeys(spec, env[CODEC_KEY_ID_VARIABLE]);
}
