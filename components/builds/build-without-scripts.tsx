import { getLocale, getTranslations } from "next-intl/server";
import { formatDateTime } from "@/components/ui/format";
import type { Locale } from "@/i18n/locale";
import { getBuild } from "@/lib/builds/service";
import { HttpProblem } from "@/lib/http/problem";
import type { PublicUser } from "@/lib/users/roles";
import { shortId } from "./build-format";

/**
 * A build's address (`/builds/<id>`, `/builds?build=<id>`) where scripts do not run: the drawer is a script, so the
 * server writes what the build is now, read as GET /builds/{build_id} answers it (status, preview, created,
 * each stage with its log's download), and says the live view needs scripts. Hidden wherever scripts run.
 */
export async function BuildWithoutScripts({ buildId, viewer }: { buildId: string; viewer: PublicUser | null }) {
  const t = await getTranslations("builds");
  const locale = (await getLocale()) as Locale;
  let build: Awaited<ReturnType<typeof getBuild>> | null;
  try {
    build = await getBuild(buildId, viewer);
  } catch (error) {
    if (!(error instanceof HttpProblem && (error.status === 404 || error.status === 400))) throw error;
    build = null;
  }
  const status = (value: string) => (t.has(`statuses.${value}` as never) ? t(`statuses.${value}` as never) : value);
  return (
    <section
      aria-labelledby="build-without-scripts"
      className="hidden rounded-xl border border-slate-200 bg-white p-4 shadow-sm noscript:block dark:border-slate-800 dark:bg-slate-900"
      data-testid="build-without-scripts"
    >
      <h2 id="build-without-scripts" className="text-base font-semibold">
        {build ? t("drawer.named", { id: shortId(build.build_id) }) : t("drawer.notFound")}
      </h2>
      {build && (
        <>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{t("drawer.needsScript")}</p>
          <dl className="mt-3 grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
            <dt className="font-medium">{t("status")}</dt>
            <dd>{status(build.status)}</dd>
            <dt className="font-medium">{t("detail.created")}</dt>
            <dd>{formatDateTime(build.created_at, locale, true, "UTC")}</dd>
            {build.preview_url && (
              <>
                <dt className="font-medium">{t("detail.preview")}</dt>
                <dd className="break-all">
                  <a className="text-indigo-700 underline dark:text-indigo-300" href={build.preview_url}>
                    {build.preview_url}
                  </a>
                </dd>
              </>
            )}
          </dl>
          <h3 className="mt-3 text-sm font-semibold">{t("stages.list")}</h3>
          <ul className="mt-1 flex flex-col gap-1 text-sm">
            {build.stages.map((stage) => (
              <li key={stage.name} className="flex flex-wrap gap-x-2">
                <span className="font-mono">{stage.name}</span>
                <span className="text-slate-600 dark:text-slate-400">{t(`stages.status.${stage.status}`)}</span>
                {stage.cached && <span data-testid="stage-cached">{t("stages.cached")}</span>}
                {stage.started_at && (
                  <a
                    className="text-indigo-700 underline dark:text-indigo-300"
                    href={`/builds/${encodeURIComponent(build.build_id)}/logs/raw?stage=${encodeURIComponent(stage.name)}`}
                  >
                    {t("drawer.stageLog")}
                  </a>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
