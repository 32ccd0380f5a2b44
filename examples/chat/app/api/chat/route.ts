/** `POST /api/chat`: `useChat`'s messages and approval decisions. */
import { chat } from "../../../lib/chat";

export const POST = chat.POST;
