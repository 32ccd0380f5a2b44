/**
 * The chat page. `?chat=<id>` names the chat (a new one gets an id and a redirect, so a reload
 * finds it again); `?transport=durable` uses `DurableChatTransport`, else the AI SDK's default
 * transport with `resume: true`. Who you are is the `user` cookie.
 */
import { randomUUID } from "node:crypto";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { Chat } from "./chat";
import { SignIn } from "./sign-in";

export default async function Page({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const { chat: chatId, transport } = await searchParams;
  const user = (await cookies()).get("user")?.value;
  if (!user) return <SignIn />;
  if (!chatId) redirect(`/?chat=${randomUUID()}${transport ? `&transport=${encodeURIComponent(transport)}` : ""}`);
  return (
    <main>
      <header style={{ display: "flex", justifyContent: "space-between", color: "#555" }}>
        <span>
          Chat <code data-testid="chat-id">{chatId}</code> (
          {transport === "durable" ? "DurableChatTransport" : "default transport"})
        </span>
        <span data-testid="user">Signed in as {user}</span>
      </header>
      <Chat chatId={chatId} durable={transport === "durable"} />
    </main>
  );
}
