/** Payload encryption: the AES-256-GCM codec, its keys, the data converter and the codec server. */
export { AesGcmPayloadCodec, CIPHER_METADATA, ENCRYPTED_ENCODING, KEY_ID_METADATA } from "./aes-gcm-codec.js";
export {
  CODEC_KEY_ID_VARIABLE,
  CODEC_KEYS_VARIABLE,
  codecKeysFromEnv,
  parseCodecKeys,
  type CodecKeyring,
} from "./codec-keys.js";
export { dataConverterFromEnv, encryptedDataConverter } from "./data-converter.js";
export { DEFAULT_CORS_ORIGINS, startCodecServer, type CodecServer, type CodecServerOptions } from "./codec-server.js";
