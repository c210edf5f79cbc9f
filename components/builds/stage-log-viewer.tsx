"use client";

import { useTranslations } from "next-intl";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { Button, Spinner } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import type { Stage } from "@/lib/swr/types";
import { useStageLog } from "@/lib/swr/use-stage-log";
import { AnsiLog, useLogLines } from "./ansi-log";

/** How close to the bottom (px) still counts as "at the bottom" for auto-scrolling. */
const STICK_THRESHOLD = 24;

interface StageLogViewerProps {
  buildId: string;
  stage: Stage;
  /** Called when a followed stage's stream ends, so the build is re-read and the next stage followed. */
  onStageEnd?: () => void;
}

/**
 * One stage's log: followed live while the stage runs, coloured, scrolled to the newest line unless the
 * person scrolled up to read, and honest about showing only the tail of a long log.
 */
export function StageLogViewer({ buildId, stage, onStageEnd }: StageLogViewerProps) {
  const t = useTranslations("builds.log");
  // A stage with no start time has no log: pending, skipped, or canceled before its turn.
  const notStarted = stage.status === "pending" || (!stage.started_at && stage.status !== "running");
  const { log, error, isLoading, isLive } = useStageLog(
    buildId,
    notStarted ? null : stage.name,
    // A running stage, or the preview's own output (the start stage's log) while the runtime lives.
    stage.status === "running" || stage.log_growing,
  );
  const scroller = useRef<HTMLDivElement>(null);
  const lines = useLogLines(log?.content ?? "");
  const [search, setSearch] = useState("");
  const [current, setCurrent] = useState(0);
  const needle = search.trim().toLowerCase();
  const matches = useMemo(
    () => (needle ? lines.texts.flatMap((text, index) => (text.toLowerCase().includes(needle) ? [index] : [])) : []),
    [lines, needle],
  );
  const currentLine = matches.length > 0 ? matches[Math.min(current, matches.length - 1)] : undefined;
  useEffect(() => {
    if (currentLine === undefined) return;
    setStuck(false);
    scroller.current?.querySelector(`[data-line="${currentLine}"]`)?.scrollIntoView({ block: "center" });
  }, [currentLine]);
  const step = (by: number) =>
    setCurrent((index) => (matches.length === 0 ? 0 : (index + by + matches.length) % matches.length));
  // Following the newest line; the parent keys the viewer by stage, so each stage starts out stuck.
  const [stuck, setStuck] = useState(true);

  // biome-ignore lint/correctness/useExhaustiveDependencies: new content is what moves the view to the newest line.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && stuck) element.scrollTop = element.scrollHeight;
  }, [log?.content, stuck]);

  const ended = log?.complete;
  const endRef = useRef(onStageEnd);
  endRef.current = onStageEnd;
  useEffect(() => {
    if (ended) endRef.current?.();
  }, [ended]);

  let placeholder: string | null = null;
  if (stage.status === "pending") placeholder = t("notStarted");
  else if (notStarted && stage.status === "canceled") placeholder = t("canceledBefore");
  else if (notStarted && stage.status === "failed") placeholder = t("failedBefore");
  else if (notStarted) placeholder = t("skipped");
  else if (error) placeholder = error.message;
  else if (isLoading) placeholder = null;
  else if (log && log.content === "") placeholder = isLive ? t("waiting") : t("empty");

  return (
    <div className="flex min-h-0 flex-col gap-2">
      <div className="flex h-6 items-center justify-between gap-2 text-sm">
        <h3 className="min-w-0 truncate font-semibold">
          {t.rich("title", { stage: () => <span className="font-mono">{stage.name}</span> })}
        </h3>
        {isLive && !notStarted && (
          <span
            className="inline-flex items-center gap-1.5 text-xs font-medium text-sky-700 dark:text-sky-300"
            data-testid="log-live"
          >
            <span aria-hidden className="size-2 animate-pulse rounded-full bg-current" /> {t("live")}
          </span>
        )}
      </div>
      {!notStarted && (
        <div className="flex flex-wrap items-center gap-2">
          <input
            type="search"
            aria-label={t("search", { stage: stage.name })}
            placeholder={t("searchPlaceholder")}
            value={search}
            onChange={(event) => {
              setSearch(event.target.value);
              setCurrent(0);
            }}
            onKeyDown={(event) => {
              if (event.key === "Enter") {
                event.preventDefault();
                step(event.shiftKey ? -1 : 1);
              }
            }}
            className={`${inputClass} h-8 max-w-56 min-w-40 flex-1`}
          />
          {needle && (
            <span
              className="text-xs text-slate-600 tabular-nums dark:text-slate-400"
              aria-live="polite"
              data-testid="log-search-count"
            >
              {t("matches", { count: matches.length, current: Math.min(current, matches.length - 1) + 1 })}
            </span>
          )}
          {matches.length > 1 && (
            <>
              <Button size="sm" variant="ghost" onClick={() => step(-1)} aria-label={t("previous")}>
                ↑
              </Button>
              <Button size="sm" variant="ghost" onClick={() => step(1)} aria-label={t("next")}>
                ↓
              </Button>
            </>
          )}
          <a
            href={`/builds/${encodeURIComponent(buildId)}/logs/raw?stage=${encodeURIComponent(stage.name)}`}
            download
            className="ml-auto text-xs font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
          >
            {t("download")}
          </a>
        </div>
      )}
      {log?.truncated && (
        <p
          className="rounded-md bg-amber-50 px-3 py-1.5 text-xs text-amber-900 dark:bg-amber-950/50 dark:text-amber-200"
          data-testid="log-truncated"
        >
          {t("truncated")}
        </p>
      )}
      <div className="relative">
        <div
          ref={scroller}
          role="log"
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard.
          tabIndex={0}
          aria-label={t("label", { stage: stage.name })}
          aria-live="off"
          aria-busy={isLoading || undefined}
          data-testid="stage-log"
          onScroll={(event) => {
            const el = event.currentTarget;
            setStuck(el.scrollHeight - el.scrollTop - el.clientHeight < STICK_THRESHOLD);
          }}
          className="h-80 scroll-pb-12 overflow-auto rounded-lg bg-slate-950 pt-3 pr-3 pb-12 font-mono text-xs leading-5 text-slate-200 ring-1 ring-slate-800 focus-visible:outline-2 focus-visible:outline-indigo-500 sm:h-[28rem]"
        >
          {isLoading && !log ? (
            <span className="inline-flex items-center gap-2 pl-3 text-slate-400">
              <Spinner className="size-3" /> {t("loading")}
            </span>
          ) : placeholder ? (
            <span className={`pl-3 ${error ? "text-red-300" : "text-slate-400"}`}>{placeholder}</span>
          ) : (
            <AnsiLog log={lines} matches={new Set(matches)} current={currentLine} />
          )}
        </div>
        {!stuck && (
          <Button
            size="sm"
            variant="primary"
            className="absolute right-3 bottom-3 shadow"
            onClick={() => {
              setStuck(true);
              const el = scroller.current;
              if (el) el.scrollTop = el.scrollHeight;
            }}
          >
            {t("jump")}
          </Button>
        )}
      </div>
    </div>
  );
}
