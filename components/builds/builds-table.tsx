"use client";

import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useTranslations } from "next-intl";
import { hrefWith } from "@/components/ui/query-string";
import type { BuildSummary } from "@/lib/swr/types";
import { BuildExpiry } from "./build-expiry";
import { repositoryLabel, shortId, shortSha } from "./build-format";
import { CommitLine, TriggerBadge, useDescribeOrigin } from "./build-origin";
import { BuildStatusBadge } from "./build-status-badge";
import { BuildAge, BuildRunTime, PreviewLink } from "./build-times";
import { BUILDS_CONSOLE_PATH } from "./console-path";
import { LogChecksBadge } from "./log-checks-badge";

/** Cards have no "Expires in" column: they say it only while it means something. */
const EXPIRING = ["queued", "checking_out", "installing", "testing", "starting", "running", "sleeping"];

const linkClass =
  "inline-flex min-h-6 items-center font-mono font-medium text-indigo-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-600 dark:text-indigo-300";

/**
 * The builds list; each id opens the build's detail inside the console (`?build=<id>`, the rest of the
 * query kept). Each row says what a person looks for: the preview's link, how long ago, how long it took, the branch,
 * commit and its author. A table where its seven columns fit (lg); below, one card per build, so nothing scrolls sideways.
 */
export function BuildsTable({ builds, grouped = false }: { builds: BuildSummary[]; grouped?: boolean }) {
  const t = useTranslations("builds");
  const describeOrigin = useDescribeOrigin();
  const params = useSearchParams();
  const href = (build: BuildSummary) => hrefWith(params, { build: build.build_id }, BUILDS_CONSOLE_PATH);
  return (
    // At least the loading placeholder's height, so the panel does not shrink when the list arrives (one group of
    // a grouped list takes only what its builds need).
    <div className={grouped ? undefined : "min-h-48"}>
      <ul className="grid grid-cols-1 gap-2 md:grid-cols-2 lg:hidden" aria-label={t("list")}>
        {builds.map((build) => (
          <li
            key={build.build_id}
            className="flex min-w-0 flex-col gap-1 rounded-lg border border-slate-200 p-3 text-sm dark:border-slate-800"
            data-testid="build-card"
          >
            <div className="flex items-center justify-between gap-2">
              <Link href={href(build)} scroll={false} className={linkClass} title={build.build_id}>
                {shortId(build.build_id)}
              </Link>
              <span className="flex flex-wrap items-center justify-end gap-1.5">
                <TriggerBadge build={build} />
                <BuildStatusBadge status={build.status} />
                <LogChecksBadge build={build} />
              </span>
            </div>
            {build.repositories.map((repo) => (
              <div key={repo.repository} className="min-w-0">
                {/* The commit stays on a phone: it is what tells two builds of one branch apart. */}
                <p className="flex min-w-0 items-baseline gap-1.5 text-slate-700 dark:text-slate-300">
                  <span className="min-w-0 truncate" title={repositoryLabel(repo)}>
                    <span className="font-medium">{repo.repository}</span>
                    <span className="text-slate-600 dark:text-slate-400">@{repo.ref}</span>
                  </span>
                  <code
                    className="shrink-0 text-xs text-slate-600 dark:text-slate-400"
                    title={repo.commit_sha ?? undefined}
                    data-testid="row-commit"
                  >
                    {shortSha(repo.commit_sha)}
                  </code>
                </p>
                <CommitLine repo={repo} />
              </div>
            ))}
            <p className="line-clamp-2 break-words text-slate-600 dark:text-slate-400">{build.modules.join(", ")}</p>
            <p className="flex flex-wrap gap-x-3 gap-y-0.5 text-xs text-slate-600 dark:text-slate-400">
              <span className="min-w-0 break-words">
                {describeOrigin(build)} · <BuildAge build={build} />
              </span>
              {build.started_at && <span>{t.rich("took", { time: () => <BuildRunTime build={build} /> })}</span>}
              {EXPIRING.includes(build.status) && (
                <span>
                  {t("expiresIn")} <BuildExpiry build={build} />
                </span>
              )}
            </p>
            <PreviewLink build={build} className="self-start" />
          </li>
        ))}
      </ul>
      <div className="hidden overflow-x-auto rounded-lg border border-slate-200 lg:block dark:border-slate-800">
        <table className="w-full min-w-[56rem] text-sm">
          <caption className="sr-only">{t("list")}</caption>
          <thead className="bg-slate-100 text-left text-xs tracking-wide text-slate-700 uppercase dark:bg-slate-800 dark:text-slate-300">
            <tr>
              <th scope="col" className="px-3 py-2 font-semibold">
                {t("columns.build")}
              </th>
              <th scope="col" className="px-3 py-2 font-semibold">
                {t("columns.branch")}
              </th>
              <th scope="col" className="px-3 py-2 font-semibold">
                {t("columns.modules")}
              </th>
              <th scope="col" className="px-3 py-2 font-semibold">
                {t("columns.status")}
              </th>
              <th scope="col" className="px-3 py-2 font-semibold">
                {t("columns.started")}
              </th>
              <th scope="col" className="px-3 py-2 font-semibold">
                {t("columns.expiresIn")}
              </th>
              <th scope="col" className="px-3 py-2 font-semibold">
                {t("columns.preview")}
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
            {builds.map((build) => (
              <tr
                key={build.build_id}
                className="align-top hover:bg-slate-50 dark:hover:bg-slate-800/40"
                data-testid="build-row"
              >
                <td className="px-3 py-2">
                  <Link href={href(build)} scroll={false} className={linkClass} title={build.build_id}>
                    {shortId(build.build_id)}
                  </Link>
                  <div className="mt-0.5">
                    <TriggerBadge build={build} />
                  </div>
                </td>
                <td className="max-w-96 px-3 py-2">
                  <ul className="flex flex-col gap-0.5">
                    {build.repositories.map((repo) => (
                      <li key={repo.repository} className="min-w-0">
                        <span className="font-medium">{repo.repository}</span>
                        <span className="text-slate-600 dark:text-slate-400">@{repo.ref}</span>{" "}
                        <code
                          className="text-xs text-slate-600 dark:text-slate-400"
                          title={repo.commit_sha ?? undefined}
                          data-testid="row-commit"
                        >
                          {shortSha(repo.commit_sha)}
                        </code>
                        <CommitLine repo={repo} />
                      </li>
                    ))}
                  </ul>
                </td>
                <td className="max-w-56 px-3 py-2 text-slate-700 dark:text-slate-300">
                  <span className="line-clamp-2" title={build.modules.join(", ")}>
                    {build.modules.join(", ")}
                  </span>
                </td>
                <td className="px-3 py-2 whitespace-nowrap">
                  <BuildStatusBadge status={build.status} />
                  <span className="block text-xs text-slate-600 tabular-nums dark:text-slate-400">
                    <BuildRunTime build={build} />
                  </span>
                  <LogChecksBadge build={build} />
                </td>
                <td className="max-w-48 px-3 py-2 text-slate-700 dark:text-slate-300">
                  <span className="block whitespace-nowrap">
                    <BuildAge build={build} />
                  </span>
                  <span
                    className="block truncate text-xs text-slate-600 dark:text-slate-400"
                    title={describeOrigin(build)}
                    data-testid="build-created-by"
                  >
                    {describeOrigin(build)}
                  </span>
                </td>
                <td className="px-3 py-2 whitespace-nowrap text-slate-700 dark:text-slate-300">
                  <BuildExpiry build={build} />
                </td>
                <td className="px-3 py-2">
                  <PreviewLink build={build} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
