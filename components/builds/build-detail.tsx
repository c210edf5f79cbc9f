"use client";

import { useState } from "react";
import { formatDateTime, formatTtl } from "@/components/ui/format";
import { PanelError, PanelLoading } from "@/components/ui/panel-states";
import type { Build, Stage, StageName } from "@/lib/swr/types";
import { useBuild } from "@/lib/swr/use-build";
import { BuildActions } from "./build-actions";
import { CommitLine, describeOrigin, TriggerBadge } from "./build-origin";
import { BuildStatusBadge } from "./build-status-badge";
import { shortSha } from "./build-format";
import { ExpiryCountdown } from "./expiry-countdown";
import { StageLogViewer } from "./stage-log-viewer";
import { StageTimeline } from "./stage-timeline";

/**
 * The stage whose log to show when the person has not picked one: the running stage (so the viewer moves
 * on as the build does), else the failed one, else the last that ran.
 */
function followedStage(build: Build): Stage | undefined {
  return (
    build.stages.find((s) => s.status === "running") ??
    build.stages.find((s) => s.status === "failed") ??
    [...build.stages].reverse().find((s) => s.status !== "pending" && s.status !== "skipped") ??
    build.stages[0]
  );
}

/** A build's detail: status, actions, failure, repositories, expiry, stage timeline and the stage log. */
export function BuildDetail({ buildId }: { buildId: string }) {
  const { data: build, error, mutate } = useBuild(buildId);
  // null follows the build; a stage name is the person's choice and stays until they pick another.
  const [pinned, setPinned] = useState<StageName | null>(null);

  if (error) return <PanelError error={error} onRetry={() => void mutate()} className="h-64" />;
  if (!build) return <PanelLoading label="Loading the build" className="h-64" />;

  const stage = (pinned && build.stages.find((s) => s.name === pinned)) || followedStage(build);

  return (
    <div className="flex flex-col gap-5">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="flex flex-col gap-1">
          <div className="flex items-center gap-2">
            <BuildStatusBadge status={build.status} />
            <TriggerBadge build={build} />
            {build.status === "queued" && build.queue_position != null && (
              <span className="text-sm text-slate-600 dark:text-slate-400">position {build.queue_position} in the queue</span>
            )}
          </div>
          <p className="font-mono text-xs break-all text-slate-600 dark:text-slate-400">{build.build_id}</p>
        </div>
        <BuildActions build={build} />
      </div>

      {build.status === "failed" && (
        <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/40 dark:text-red-100" data-testid="failure-box">
          <p className="font-semibold">Failed in {build.failure_stage ?? "an unknown stage"}</p>
          {build.failure_message && <p className="mt-1 whitespace-pre-wrap">{build.failure_message}</p>}
        </div>
      )}

      <dl className="grid grid-cols-2 gap-x-6 gap-y-3 text-sm sm:grid-cols-4">
        <Fact label="Created">{formatDateTime(build.created_at)}</Fact>
        <Fact label="Started by">
          <span data-testid="build-origin">{describeOrigin(build)}</span>
        </Fact>
        <Fact label="Started">{formatDateTime(build.started_at)}</Fact>
        <Fact label="Finished">{formatDateTime(build.finished_at)}</Fact>
        <Fact label={build.status === "running" || !build.finished_at ? "Expires in" : "Expiry"}>
          {["destroyed", "expired", "failed", "canceled"].includes(build.status) ? (
            formatDateTime(build.expires_at)
          ) : (
            <span data-testid="expiry-countdown">
              <ExpiryCountdown expiresAt={build.expires_at} />
            </span>
          )}
          <span className="block text-xs text-slate-600 dark:text-slate-400">TTL {formatTtl(build.ttl_seconds)}</span>
        </Fact>
      </dl>

      <div className="grid gap-4 sm:grid-cols-2">
        <div>
          <h3 className="mb-1 text-sm font-semibold">Repositories</h3>
          <ul className="flex flex-col gap-1 text-sm">
            {build.repositories.map((repo) => (
              <li key={repo.repository} className="flex flex-wrap items-baseline gap-x-2">
                <span className="font-medium">{repo.repository}</span>
                <span className="font-mono text-slate-700 dark:text-slate-300">{repo.ref}</span>
                <code className="text-xs text-slate-600 dark:text-slate-400" title={repo.commit_sha ?? undefined} data-testid="commit-sha">
                  {shortSha(repo.commit_sha)}
                </code>
                <CommitLine repo={repo} />
              </li>
            ))}
          </ul>
        </div>
        <div>
          <h3 className="mb-1 text-sm font-semibold">Modules</h3>
          <ul className="flex flex-wrap gap-1.5">
            {build.modules.map((name) => (
              <li key={name} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-800 dark:bg-slate-800 dark:text-slate-200">
                {name}
              </li>
            ))}
          </ul>
        </div>
      </div>

      <div className="grid gap-4 lg:grid-cols-[16rem_minmax(0,1fr)]">
        <div>
          <h3 className="mb-1 text-sm font-semibold">Stages</h3>
          <StageTimeline stages={build.stages} selected={stage?.name ?? null} onSelect={setPinned} />
          {pinned && (
            <button
              type="button"
              onClick={() => setPinned(null)}
              className="mt-2 text-xs font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
            >
              Follow the build
            </button>
          )}
        </div>
        {stage ? (
          <StageLogViewer key={stage.name} buildId={build.build_id} stage={stage} onStageEnd={() => void mutate()} />
        ) : (
          <p className="text-sm text-slate-600 dark:text-slate-400">This build has no stages.</p>
        )}
      </div>
    </div>
  );
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <dt className="text-xs font-medium tracking-wide text-slate-600 uppercase dark:text-slate-400">{label}</dt>
      <dd className="mt-0.5 tabular-nums">{children}</dd>
    </div>
  );
}
