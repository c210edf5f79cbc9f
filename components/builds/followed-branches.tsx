"use client";

import { useTranslations } from "next-intl";
import { useAppConfig } from "@/lib/swr/use-app-config";

/** Which branches are built automatically (auto_build in the configuration), per repository. */
export function FollowedBranches() {
  const t = useTranslations("builds");
  const { data } = useAppConfig();
  const followed = data?.repositories.filter((repository) => repository.auto_build) ?? [];
  if (followed.length === 0) return null;
  return (
    <p className="mb-3 text-sm text-slate-700 dark:text-slate-300" data-testid="followed-branches">
      <span className="font-medium">{t("followed")}</span>{" "}
      {followed.map((repository, index) => (
        <span key={repository.alias}>
          {index > 0 && "; "}
          {repository.alias}{" "}
          {repository.auto_build!.branches.map((glob) => (
            <code key={glob} className="mx-0.5 rounded bg-slate-100 px-1 text-xs dark:bg-slate-800">
              {glob}
            </code>
          ))}
          <span className="text-xs text-slate-600 dark:text-slate-400">
            {" "}
            (
            {[
              repository.auto_build!.webhook && t("followedWebhook"),
              repository.auto_build!.watch_interval_seconds &&
                t("followedPolled", { seconds: repository.auto_build!.watch_interval_seconds }),
            ]
              .filter(Boolean)
              .join(", ") || t("followedNone")}
            )
          </span>
        </span>
      ))}
    </p>
  );
}
