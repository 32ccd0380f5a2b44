import { z } from "zod";
import type { Message } from "../core/types.js";
import { InvalidInputError } from "../errors.js";

const providerMetadata = z.record(z.string(), z.record(z.string(), z.unknown()));
const toolCall = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
  providerMetadata: providerMetadata.optional(),
});
const contentPart = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({
    type: z.literal("image_url"),
    image_url: z.object({ url: z.string().min(1), detail: z.enum(["auto", "low", "high"]).optional() }),
  }),
  z.object({
    type: z.literal("file"),
    file: z.object({ file_data: z.string().min(1), filename: z.string().optional() }),
  }),
]);
const message = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.union([z.string(), z.array(contentPart).min(1)]) }),
  z.object({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    toolCalls: z.array(toolCall).optional(),
    reasoning: z.array(z.object({ text: z.string(), providerMetadata: providerMetadata.optional() })).optional(),
    textMetadata: providerMetadata.optional(),
  }),
  z.object({ role: z.literal("tool"), toolCallId: z.string(), name: z.string(), content: z.string() }),
]);
const messages = z.array(message).min(1);

/**
 * What a run takes: the user's text, or a conversation ending in the user's turn (user messages may
 * carry content parts: text, images and files; answers their reasoning and provider metadata).
 */
export type RunInput = string | Message[];

/** Turns a run input into messages, or throws `InvalidInputError` saying what is wrong. */
export function normalizeInput(input: unknown): Message[] {
  if (typeof input === "string") {
    if (input.trim() === "") throw new InvalidInputError("the input string is empty");
    return [{ role: "user", content: input }];
  }
  if (!Array.isArray(input)) throw new InvalidInputError(`got ${input === null ? "null" : typeof input}`);
  const parsed = messages.safeParse(input);
  if (!parsed.success) throw new InvalidInputError(z.prettifyError(parsed.error).replace(/\n/g, "; "));
  return parsed.data as Message[];
}
