"use client";

import { useTranslations } from "next-intl";
import { CopyButton } from "@/components/ui/copy-button";
import type { Build } from "@/lib/swr/types";

const KINDS = ["build", "branch", "pull_request"] as const;

/**
 * The names the preview is reached at behind the gateway: the build's own, and its branch's or pull request's,
 * which reviewers bookmark since it follows rebuilds and pushes; each as the full URL a visitor types, the
 * gateway's port included. Shown whatever the build's status: the branch's name leads to a newer build once this
 * one is gone.
 */
export function PreviewNames({ build }: { build: Build }) {
  const t = useTranslations("builds.previewNames");
  const names = build.preview_names ?? [];
  if (names.length === 0) return null;
  return (
    <div className="flex flex-col gap-1 text-sm" data-testid="preview-names">
      <span className="text-xs font-medium tracking-wide text-slate-600 uppercase dark:text-slate-400">
        {t("title")}
      </span>
      <ul className="flex flex-col gap-1">
        {names.map((name) => (
          <li key={name.kind} className="flex min-w-0 flex-wrap items-center gap-2">
            <span className="text-slate-600 dark:text-slate-400">
              {KINDS.includes(name.kind) ? t(name.kind) : name.kind}:
            </span>
            <a
              href={name.url}
              target="_blank"
              rel="noopener noreferrer"
              className="min-w-0 font-mono break-all text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
            >
              {name.url}
            </a>
            <CopyButton text={name.url} label={t(name.kind === "build" ? "copyBuild" : "copyStable")} />
          </li>
        ))}
      </ul>
    </div>
  );
}
