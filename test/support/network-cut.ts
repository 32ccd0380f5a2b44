/**
 * A loopback TCP proxy in front of a server, whose network a test can cut: `cut()` drops every
 * open connection (a response mid-stream ends without its end) and refuses new ones until
 * `restore()`, as a dropped Wi-Fi does. The browser talks to the proxy's URL.
 */
import { connect, createServer, type Socket } from "node:net";

/** The proxy: its URL, the cut, and how many connections it refused while cut. */
export interface CuttableNetwork {
  readonly url: string;
  /** Drops every open connection and refuses new ones. */
  cut(): void;
  /** Lets connections through again. */
  restore(): void;
  /** Connections refused while the network was cut. */
  readonly refused: number;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 to `127.0.0.1:targetPort`. */
export function startCuttableNetwork(targetPort: number): Promise<CuttableNetwork> {
  const open = new Set<Socket>();
  let down = false;
  let refused = 0;
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
    socket.on("error", () => socket.destroy()); // a cut connection's error is the point, not a failure
  };
  const server = createServer((browser) => {
    if (down) {
      refused += 1;
      browser.destroy();
      return;
    }
    const upstream = connect(targetPort, "127.0.0.1");
    track(browser);
    track(upstream);
    browser.once("close", () => upstream.destroy());
    upstream.once("close", () => browser.destroy());
    browser.pipe(upstream).pipe(browser);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}`,
        cut() {
          down = true;
          for (const socket of open) socket.destroy();
        },
        restore() {
          down = false;
        },
        get refused() {
          return refused;
        },
        close: () =>
          new Promise<void>((done) => {
            for (const socket of open) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
