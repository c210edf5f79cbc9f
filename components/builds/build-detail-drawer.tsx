"use client";

import { useRouter, useSearchParams } from "next/navigation";
import { Modal } from "@/components/ui/modal";
import { BuildDetail } from "./build-detail";
import { shortId } from "./build-format";

/**
 * The build named by `?build=<id>` in a side drawer. The dashboard is the only page (the API owns the
 * /builds paths), so a build's detail is addressed by the query string: it can be linked and reloaded.
 */
export function BuildDetailDrawer() {
  const params = useSearchParams();
  const router = useRouter();
  const buildId = params.get("build");
  return (
    <Modal
      open={buildId !== null}
      onClose={() => router.push("/", { scroll: false })}
      title={buildId ? `Build ${shortId(buildId)}` : "Build"}
      placement="side"
    >
      {buildId && <BuildDetail key={buildId} buildId={buildId} />}
    </Modal>
  );
}
