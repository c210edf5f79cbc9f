import net from "node:net";

/**
 * A raw connection to `baseUrl` that sends a GET for each of `paths` at once (HTTP/1.1 pipelining, the last one
 * closing the connection) and then reads nothing: its receive buffer fills, then the server's send buffer, then
 * the server's responses wait. `resume` reads what arrives until the connection closes (or is reset).
 */
export async function openStalledPipeline(baseUrl: string, paths: string[]) {
  const socket = net.connect(Number(new URL(baseUrl).port), "127.0.0.1");
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  socket.pause();
  socket.write(
    paths
      .map(
        (path, index) =>
          `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${index === paths.length - 1 ? "Connection: close\r\n" : ""}\r\n`,
      )
      .join(""),
  );
  return {
    /** Reads until the server closes the connection; the bytes as latin1 text. */
    resume: () =>
      new Promise<string>((resolve) => {
        const chunks: Buffer[] = [];
        socket.on("data", (chunk: Buffer) => chunks.push(chunk));
        socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
        socket.on("error", () => undefined);
        socket.resume();
      }),
    destroy: () => socket.destroy(),
  };
}
