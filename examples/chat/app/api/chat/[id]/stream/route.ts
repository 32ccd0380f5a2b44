/** `GET /api/chat/{id}/stream` resumes the answer in flight (`?messages`: the chat's history); `DELETE` stops it. */
import { chat } from "../../../../../lib/chat";

export const GET = chat.GET;
export const DELETE = chat.DELETE;
