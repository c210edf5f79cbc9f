import { useRef } from "react";
import useSWR from "swr";
import useSWRSubscription from "swr/subscription";
import { ApiError } from "./fetcher";
import type { StageLogPage, StageName } from "./types";

export interface StageLog {
  content: string;
  /** The shown text is the tail of a longer log. */
  truncated: boolean;
  /** The stage is over: no more output will come. */
  complete: boolean;
}

interface StreamState extends StageLog {
  /** Byte offset in the log file after the last text received. */
  offset: number;
}

/** The most a viewer keeps in memory while following; older text is dropped and the log marked as a tail. */
const MAX_LIVE_CHARS = 200_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Appends one SSE event to the followed log. An event's `data` is the log text itself (its lines as `data:`
 * lines) and its `id` the byte offset after that text, so text already held (after a reconnect, or when a
 * second subscriber restarts the stream from byte 0) is recognised by offset and not shown twice.
 */
function appendEvent(state: StreamState | undefined, text: string, endOffset: number): StreamState {
  const bytes = encoder.encode(text);
  const startOffset = endOffset - bytes.length;
  // The stream starts at byte 0 of the log; the client keeps the tail (MAX_LIVE_CHARS) of long ones.
  if (!state) return { content: text, offset: endOffset, truncated: false, complete: false };
  if (endOffset <= state.offset) return state;
  const fresh = startOffset >= state.offset ? text : decoder.decode(bytes.slice(state.offset - startOffset));
  let content = state.content + fresh;
  let truncated = state.truncated;
  if (content.length > MAX_LIVE_CHARS) {
    content = content.slice(content.indexOf("\n", content.length - MAX_LIVE_CHARS) + 1);
    truncated = true;
  }
  return { ...state, content, offset: endOffset, truncated };
}

const logKey = (id: string, stage: StageName) =>
  `/builds/${encodeURIComponent(id)}/logs?${new URLSearchParams({ stage })}`;
const streamKey = (id: string, stage: StageName) =>
  `/builds/${encodeURIComponent(id)}/logs/stream?${new URLSearchParams({ stage })}`;

/**
 * One stage's log. A stage that was running when it was opened is followed live over the SSE stream (and
 * stays on the stream after it ends, so the text does not reload); any other stage is read once as JSON,
 * the last 100,000 bytes. `live` is the caller's view of whether the stage is running now.
 */
export function useStageLog(id: string | null, stage: StageName | null, live: boolean) {
  // Once followed, a stage keeps its stream data; switching to the JSON read when it ends would flash.
  const followed = useRef(new Set<string>());
  const followKey = id && stage ? streamKey(id, stage) : null;
  if (followKey && live) followed.current.add(followKey);
  const useStream = followKey !== null && followed.current.has(followKey);

  const stream = useSWRSubscription<StreamState, ApiError, string | null>(
    useStream ? followKey : null,
    (key, { next }) => {
      const source = new EventSource(key);
      source.onmessage = (event: MessageEvent<string>) => {
        const endOffset = Number(event.lastEventId);
        next(null, (state) => appendEvent(state, event.data, endOffset));
      };
      source.addEventListener("end", () => {
        source.close();
        next(null, (state) => ({ ...(state ?? { content: "", offset: 0, truncated: false }), complete: true }));
      });
      source.onerror = () => {
        // EventSource reconnects by itself (sending Last-Event-ID); only a closed source is a real failure.
        if (source.readyState === EventSource.CLOSED) {
          next(
            new ApiError(0, {
              title: "Log stream closed",
              status: 0,
              detail: "The live log stream was closed by the server. Reopen the stage to try again.",
            }),
          );
        }
      };
      return () => source.close();
    },
  );

  const page = useSWR<StageLogPage, ApiError>(id && stage && !useStream ? logKey(id, stage) : null);

  if (useStream) {
    return {
      log: stream.data ?? null,
      error: stream.error,
      isLoading: !stream.data && !stream.error,
      isLive: !stream.data?.complete,
    };
  }
  return {
    log: page.data
      ? ({ content: page.data.content, truncated: page.data.truncated, complete: page.data.complete } as StageLog)
      : null,
    error: page.error,
    isLoading: page.isLoading,
    isLive: false,
  };
}
