"use client";

import { useRouter, useSearchParams } from "next/navigation";
import { useTranslations } from "next-intl";
import { Modal } from "@/components/ui/modal";
import { hrefWith } from "@/components/ui/query-string";
import { useBuild } from "@/lib/swr/use-build";
import { BuildDetail } from "./build-detail";
import { shortId } from "./build-format";
import { BUILDS_CONSOLE_PATH } from "./console-path";

/**
 * The build named by `?build=<id>` in a side drawer of the builds console. The API owns the /builds/<id>
 * paths, so a build's detail is addressed by the query string: it can be linked and reloaded. Closing it keeps
 * the rest of the query.
 */
export function BuildDetailDrawer() {
  const t = useTranslations("builds.drawer");
  const params = useSearchParams();
  const router = useRouter();
  const buildId = params.get("build");
  // The same SWR key as the detail's: one request, and the title can say when the id names no build.
  const { error } = useBuild(buildId);
  const close = () => router.push(hrefWith(params, { build: null }, BUILDS_CONSOLE_PATH), { scroll: false });
  const title = !buildId ? t("build") : error?.status === 404 ? t("notFound") : t("named", { id: shortId(buildId) });
  return (
    <Modal open={buildId !== null} onClose={close} title={title} placement="side">
      {buildId && <BuildDetail key={buildId} buildId={buildId} onClose={close} />}
    </Modal>
  );
}
