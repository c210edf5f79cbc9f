/**
 * A server started with its output piped to a supervisor (a test runner, a shell pipeline, `npm start | tee`)
 * outlives the reader when that reader dies. Node then reports EPIPE as an `error` event on process.stdout or
 * process.stderr; with no listener it becomes an uncaught exception, which Next.js logs with console.error,
 * which fails with EPIPE again: the server spins a core at 100 % forever while still answering requests.
 *
 * Output that has nowhere to go is dropped instead; the server goes on serving.
 */
export function dropOutputWithoutReader(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      // Only a reader that went away is expected here; anything else is still worth the crash it causes.
      if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
    });
  }
}
