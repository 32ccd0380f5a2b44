/**
 * A pass-through HTTP/2 proxy in front of the suite's real Temporal dev server, which speaks
 * neither TLS nor API keys: it terminates TLS (optionally requiring a client certificate, as an
 * mTLS deployment does) and records each call's headers, then forwards the call unchanged; or,
 * for the methods in `refuse`, answers with that gRPC status instead, as a server that does not
 * allow the caller that call does (Temporal Cloud's operator service, say).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import http2, { type IncomingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";

export interface ProxyCall {
  path: string;
  authorization: string | undefined;
  /** The client certificate's common name, when one was presented. */
  clientCertificate: string | undefined;
}

export interface GrpcProxy {
  address: string;
  calls: ProxyCall[];
  close(): Promise<void>;
}

export interface ProxyTls {
  key: Buffer;
  cert: Buffer;
  /** Require a client certificate signed by this CA (mTLS). */
  clientCa?: Buffer;
}

/** gRPC statuses, by method path (`/temporal.api.operatorservice.v1.OperatorService/ListSearchAttributes`), for calls the proxy answers itself instead of forwarding. */
export type RefusedCalls = Record<string, number>;

export async function startGrpcProxy(target: string, tls?: ProxyTls, refuse: RefusedCalls = {}): Promise<GrpcProxy> {
  const calls: ProxyCall[] = [];
  const upstream = http2.connect(`http://${target}`);
  upstream.on("error", () => {});
  const server = tls
    ? http2.createSecureServer({
        key: tls.key,
        cert: tls.cert,
        ...(tls.clientCa ? { ca: tls.clientCa, requestCert: true, rejectUnauthorized: true } : {}),
      })
    : http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  server.on("stream", (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    const socket = stream.session?.socket as TLSSocket | undefined;
    const peer = typeof socket?.getPeerCertificate === "function" ? socket.getPeerCertificate() : undefined;
    calls.push({
      path: String(headers[":path"]),
      authorization: headers.authorization,
      clientCertificate: peer?.subject?.CN as string | undefined,
    });
    const refused = refuse[String(headers[":path"])];
    if (refused !== undefined) {
      stream.resume(); // the request's body is read and dropped
      stream.respond(
        {
          ":status": 200,
          "content-type": "application/grpc",
          "grpc-status": String(refused),
          "grpc-message": "refused by the test proxy",
        },
        { endStream: true },
      );
      return;
    }
    const forwarded: http2.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(headers))
      if (name !== ":authority" && name !== ":scheme" && value !== undefined) forwarded[name] = value;
    const request = upstream.request(forwarded);
    let trailers: http2.IncomingHttpHeaders = {};
    request.on("trailers", (received) => (trailers = received));
    request.on("response", (responseHeaders) => {
      if (stream.destroyed) return;
      const { ":status": status, ...rest } = responseHeaders;
      stream.respond({ ":status": status, ...rest }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers(trailers));
      request.pipe(stream);
    });
    request.on("error", () => stream.destroy());
    stream.on("error", () => request.destroy());
    stream.on("close", () => request.close());
    stream.pipe(request);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        for (const session of sessions) session.destroy();
        upstream.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Files of a throwaway CA, a server certificate for localhost/127.0.0.1 and a client certificate, made with openssl. */
export interface TestCertificates {
  dir: string;
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

export function makeCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), "durable-agent-tls-"));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(
    "req",
    "-x509",
    ...ec,
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "2",
    "-subj",
    "/CN=durable-agent test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  );
  for (const [name, cn, extensions] of [
    [
      "server",
      "localhost",
      "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n",
    ],
    [
      "client",
      "durable-agent-worker",
      "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n",
    ],
  ] as const) {
    openssl("req", ...ec, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${cn}`);
    writeFileSync(file(`${name}.ext`), extensions);
    openssl(
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      `${name}.pem`,
      "-days",
      "2",
      "-extfile",
      `${name}.ext`,
    );
  }
  return {
    dir,
    ca: file("ca.pem"),
    serverCert: file("server.pem"),
    serverKey: file("server.key"),
    clientCert: file("client.pem"),
    clientKey: file("client.key"),
  };
}

export function serverTls(certs: TestCertificates, requireClientCertificate: boolean): ProxyTls {
  return {
    key: readFileSync(certs.serverKey),
    cert: readFileSync(certs.serverCert),
    ...(requireClientCertificate ? { clientCa: readFileSync(certs.ca) } : {}),
  };
}
