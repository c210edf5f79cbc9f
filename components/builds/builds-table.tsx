"use client";

import Link from "next/link";
import { formatDateTime } from "@/components/ui/format";
import type { BuildSummary } from "@/lib/swr/types";
import { CommitLine, TriggerBadge } from "./build-origin";
import { BuildStatusBadge } from "./build-status-badge";
import { shortId, shortSha } from "./build-format";
import { ExpiryCountdown } from "./expiry-countdown";

const EXPIRING_STATUSES = ["queued", "checking_out", "installing", "testing", "starting", "running"];

/** The builds list; each id opens the build's detail inside the dashboard (`/?build=<id>`). */
export function BuildsTable({ builds }: { builds: BuildSummary[] }) {
  return (
    // At least the loading placeholder's height, so the panel does not shrink when the list arrives.
    <div className="min-h-48 overflow-x-auto rounded-lg border border-slate-200 dark:border-slate-800">
      <table className="w-full min-w-[48rem] text-sm">
        <caption className="sr-only">Builds, newest first</caption>
        <thead className="bg-slate-100 text-left text-xs tracking-wide text-slate-700 uppercase dark:bg-slate-800 dark:text-slate-300">
          <tr>
            <th scope="col" className="px-3 py-2 font-semibold">Build</th>
            <th scope="col" className="px-3 py-2 font-semibold">Repositories</th>
            <th scope="col" className="px-3 py-2 font-semibold">Modules</th>
            <th scope="col" className="px-3 py-2 font-semibold">Status</th>
            <th scope="col" className="px-3 py-2 font-semibold">Created</th>
            <th scope="col" className="px-3 py-2 font-semibold">Expires in</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {builds.map((build) => (
            <tr key={build.build_id} className="align-top hover:bg-slate-50 dark:hover:bg-slate-800/40" data-testid="build-row">
              <td className="px-3 py-2">
                <Link
                  href={`/?build=${encodeURIComponent(build.build_id)}`}
                  scroll={false}
                  className="font-mono font-medium text-indigo-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-600 dark:text-indigo-300"
                  title={build.build_id}
                >
                  {shortId(build.build_id)}
                </Link>
                <div className="mt-0.5">
                  <TriggerBadge build={build} />
                </div>
              </td>
              <td className="px-3 py-2">
                <ul className="flex flex-col gap-0.5">
                  {build.repositories.map((repo) => (
                    <li key={repo.repository} className="whitespace-nowrap">
                      <span className="font-medium">{repo.repository}</span>
                      <span className="text-slate-600 dark:text-slate-400">@{repo.ref}</span>{" "}
                      <code className="text-xs text-slate-600 dark:text-slate-400" title={repo.commit_sha ?? undefined}>
                        {shortSha(repo.commit_sha)}
                      </code>
                      <CommitLine repo={repo} />
                    </li>
                  ))}
                </ul>
              </td>
              <td className="max-w-64 px-3 py-2 text-slate-700 dark:text-slate-300">
                <span className="line-clamp-2" title={build.modules.join(", ")}>
                  {build.modules.join(", ")}
                </span>
              </td>
              <td className="px-3 py-2">
                <BuildStatusBadge status={build.status} />
              </td>
              <td className="px-3 py-2 whitespace-nowrap text-slate-700 dark:text-slate-300">
                <time dateTime={build.created_at}>{formatDateTime(build.created_at)}</time>
              </td>
              <td className="px-3 py-2 whitespace-nowrap text-slate-700 dark:text-slate-300">
                {EXPIRING_STATUSES.includes(build.status) ? <ExpiryCountdown expiresAt={build.expires_at} /> : "—"}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
