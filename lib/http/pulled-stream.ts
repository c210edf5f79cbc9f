/**
 * The lines as a byte stream that is pulled, a page at a time, only as the client takes them: the response's
 * writer waits for the socket to drain before it asks for more, so a slow reader costs a page and the socket's
 * buffers, never the file. A reader that takes nothing for `idleMs` (a stalled tab, a hostile client) has the
 * stream errored: its lines are no longer made (the generator is closed), and the response is cut off (not ended, so the client
 * cannot take a partial file for a whole one) as soon as its socket moves or closes.
 *
 * `onEnd` is called once when the stream is over, however it ends: all lines taken, cut off idle, canceled by
 * the client's going away, or a line that could not be made. The first page is made as soon as the stream
 * exists, so even a stream that nobody reads ends by the idle bound.
 */
export function streamPulledText(
  lines: AsyncGenerator<string, void, undefined>,
  idleMs: number,
  onEnd: () => void = () => {},
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let idle: NodeJS.Timeout | undefined;
  const stopWaiting = () => clearTimeout(idle);
  let ended = false;
  const end = () => {
    stopWaiting();
    if (ended) return;
    ended = true;
    onEnd();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        stopWaiting();
        let next: IteratorResult<string, void>;
        try {
          next = await lines.next();
        } catch (error) {
          end();
          throw error;
        }
        if (next.done) {
          end();
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(next.value));
        // The next pull comes once the client has taken this page; none within idleMs: it has stopped reading.
        idle = setTimeout(() => {
          controller.error(new Error(`the client took nothing for ${idleMs / 1000} s: the response is cut off`));
          end();
          void lines.return(undefined);
        }, idleMs);
        idle.unref();
      },
      async cancel() {
        end();
        await lines.return(undefined);
      },
    },
    // One page waits at most: the stream asks for the next only once the client took the last.
    { highWaterMark: 1 },
  );
}
