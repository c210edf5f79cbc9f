"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { PanelEmpty, PanelError, PanelLoading } from "@/components/ui/panel-states";
import { useFormat } from "@/components/ui/use-format";
import { useNow } from "@/components/ui/use-now";
import type { Build } from "@/lib/swr/types";
import { useBuild } from "@/lib/swr/use-build";
import { BuildActions } from "./build-actions";
import { BuildExpiry, useExpiryLabel } from "./build-expiry";
import { shortSha } from "./build-format";
import { CommitLine, TriggerBadge, useDescribeOrigin } from "./build-origin";
import { BuildStatusBadge } from "./build-status-badge";
import { followedStage } from "./followed-stage";
import { LogChecksBadge } from "./log-checks-badge";
import { PreviewAccess } from "./preview-access";
import { PreviewNames } from "./preview-names";
import { StageLogViewer } from "./stage-log-viewer";
import { StageTimeline } from "./stage-timeline";

/**
 * What the git hosts were last told of each repository, one small line: the state sent, or what
 * went wrong when a host did not take it.
 */
function ForgeReportLine({ build }: { build: Build }) {
  const t = useTranslations("builds.detail");
  const reports = build.forge_reports ?? [];
  if (reports.length === 0) return null;
  const last = new Map(reports.map((report) => [`${report.repository} ${report.kind}`, report]));
  return (
    <p className="mt-1 text-xs text-slate-600 dark:text-slate-400" data-testid="forge-reports">
      {t("gitHost")}{" "}
      {[...last.values()].map((report, index) => (
        <span
          key={`${report.repository}-${report.kind}`}
          className={report.outcome === "failed" ? "text-red-700 dark:text-red-300" : undefined}
        >
          {index > 0 && " · "}
          {report.repository} {report.kind}{" "}
          {report.outcome === "sent"
            ? report.state
            : t("notDelivered", { state: report.state, error: report.error ?? t("unknown") })}
        </span>
      ))}
    </p>
  );
}

/** A build's detail: status, actions, failure, people and times, preview, repositories, stages and the stage log. */
export function BuildDetail({ buildId, onClose }: { buildId: string; onClose: () => void }) {
  const t = useTranslations("builds.detail");
  const format = useFormat();
  const describeOrigin = useDescribeOrigin();
  const expiryLabel = useExpiryLabel();
  const { data: build, error, mutate } = useBuild(buildId);
  // null follows the build; a stage name is the person's choice and stays until they pick another.
  const [pinned, setPinned] = useState<string | null>(null);

  if (error?.status === 404) return <BuildNotFound buildId={buildId} onClose={onClose} />;
  // Asking again only helps when the server or the network failed, not for a refused request.
  const retryable = error && (error.status === 0 || error.status >= 500);
  if (error) return <PanelError error={error} onRetry={retryable ? () => void mutate() : undefined} className="h-64" />;
  if (!build) return <PanelLoading label={t("loading")} className="h-64" />;

  const stage =
    (pinned && build.stages.find((s) => s.name === pinned)) || followedStage(build.stages, build.failure_stage);

  return (
    <div className="flex min-w-0 flex-col gap-5">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="flex min-w-0 flex-col gap-1">
          <div className="flex flex-wrap items-center gap-2">
            <BuildStatusBadge status={build.status} />
            <TriggerBadge build={build} />
            <LogChecksBadge build={build} />
            {build.status === "queued" && build.queue_position != null && (
              <span className="text-sm text-slate-600 dark:text-slate-400">
                {t("queuePosition", { position: build.queue_position })}
              </span>
            )}
          </div>
          <p className="font-mono text-xs break-all text-slate-600 dark:text-slate-400">{build.build_id}</p>
        </div>
        <BuildActions build={build} />
      </div>

      {build.status === "failed" && (
        <div
          role="alert"
          className="rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/40 dark:text-red-100"
          data-testid="failure-box"
        >
          <p className="font-semibold">{t("failedIn", { stage: build.failure_stage ?? t("unknownStage") })}</p>
          {build.failure_message && <p className="mt-1 break-words whitespace-pre-wrap">{build.failure_message}</p>}
        </div>
      )}

      {build.preview_url && (
        <div className="flex flex-col gap-1 text-sm" data-testid="preview-url">
          <span className="text-xs font-medium tracking-wide text-slate-600 uppercase dark:text-slate-400">
            {t("preview")}
          </span>
          <div className="flex min-w-0 flex-wrap items-center gap-2">
            <a
              href={build.preview_url}
              target="_blank"
              rel="noopener noreferrer"
              className="min-w-0 font-mono break-all text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
            >
              {build.preview_url}
            </a>
            <CopyButton text={build.preview_url} label={t("copyUrl")} />
          </div>
        </div>
      )}

      <PreviewNames build={build} />
      <PreviewAccess build={build} />

      <dl className="grid grid-cols-2 gap-x-6 gap-y-3 text-sm sm:grid-cols-3">
        <Fact label={t("startedBy")}>
          <span className="break-words" data-testid="build-origin">
            {describeOrigin(build)}
          </span>
        </Fact>
        <Fact label={t("created")}>{format.utcDateTime(build.created_at)}</Fact>
        <Fact label={t("started")}>{format.utcDateTime(build.started_at)}</Fact>
        {/* finished_at is when the build stopped working: for a running build, when its preview came up. */}
        <Fact label={build.status === "running" ? t("runningSince") : t("finished")}>
          <span data-testid="build-finished">{format.utcDateTime(build.finished_at)}</span>
        </Fact>
        <Fact label={t("duration")}>
          <span data-testid="build-duration">
            <BuildDuration build={build} />
          </span>
        </Fact>
        <Fact label={expiryLabel(build)}>
          <span data-testid="expiry-countdown">
            <BuildExpiry build={build} />
          </span>
          <span className="block text-xs text-slate-600 dark:text-slate-400">
            {t("ttl", { ttl: format.ttl(build.ttl_seconds) })}
          </span>
        </Fact>
      </dl>

      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        <div>
          <h3 className="mb-1 text-sm font-semibold">{t("repositories")}</h3>
          <ul className="flex flex-col gap-1 text-sm">
            {build.repositories.map((repo) => (
              <li key={repo.repository} className="flex flex-wrap items-baseline gap-x-2">
                <span className="font-medium">{repo.repository}</span>
                <span className="font-mono text-slate-700 dark:text-slate-300">{repo.ref}</span>
                <code
                  className="text-xs text-slate-600 dark:text-slate-400"
                  title={repo.commit_sha ?? undefined}
                  data-testid="commit-sha"
                >
                  {shortSha(repo.commit_sha)}
                </code>
                <CommitLine repo={repo} />
              </li>
            ))}
          </ul>
          <ForgeReportLine build={build} />
        </div>
        <div>
          <h3 className="mb-1 text-sm font-semibold">{t("modules")}</h3>
          <ul className="flex flex-wrap gap-1.5">
            {build.modules.map((name) => (
              <li
                key={name}
                className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-800 dark:bg-slate-800 dark:text-slate-200"
              >
                {name}
              </li>
            ))}
          </ul>
        </div>
      </div>

      <div className="grid grid-cols-1 gap-4 lg:grid-cols-[16rem_minmax(0,1fr)]">
        <div>
          <h3 className="mb-1 text-sm font-semibold">{t("stages")}</h3>
          <StageTimeline stages={build.stages} selected={stage?.name ?? null} onSelect={setPinned} />
          {pinned && (
            <button
              type="button"
              onClick={() => setPinned(null)}
              className="mt-2 text-xs font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
            >
              {t("followBuild")}
            </button>
          )}
        </div>
        {stage ? (
          <StageLogViewer key={stage.name} buildId={build.build_id} stage={stage} onStageEnd={() => void mutate()} />
        ) : (
          <p className="text-sm text-slate-600 dark:text-slate-400">{t("noStages")}</p>
        )}
      </div>
    </div>
  );
}

/**
 * From the start of the first stage to the end of the last (reaching running, failing or being canceled);
 * ticking while the build works; the wait in the queue is not counted.
 */
function BuildDuration({ build }: { build: Build }) {
  const format = useFormat();
  const now = useNow(1_000);
  if (!build.started_at) return <>—</>;
  const end = build.finished_at ? new Date(build.finished_at).getTime() : now;
  return <>{format.duration(end - new Date(build.started_at).getTime())}</>;
}

/** The drawer's answer to a link or id that names no build: say so, and offer the way back, not a retry. */
function BuildNotFound({ buildId, onClose }: { buildId: string; onClose: () => void }) {
  const t = useTranslations("builds.detail");
  return (
    // The drawer's title already says "Build not found": the body says why and the way back.
    <PanelEmpty className="h-64">
      <p className="max-w-sm break-words">
        {t.rich("notFound", {
          id: buildId,
          code: (chunks) => <code className="font-mono break-all">{chunks}</code>,
        })}
      </p>
      <Button onClick={onClose}>{t("back")}</Button>
    </PanelEmpty>
  );
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs font-medium tracking-wide text-slate-600 uppercase dark:text-slate-400">{label}</dt>
      <dd className="mt-0.5 tabular-nums">{children}</dd>
    </div>
  );
}
