"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { useSWRConfig } from "swr";
import { useCanAct } from "@/components/auth/use-can-act";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { formatTtl } from "@/components/ui/format";
import { ApiError, sendJson } from "@/lib/swr/fetcher";
import type { Build } from "@/lib/swr/types";
import { useAppConfig } from "@/lib/swr/use-app-config";
import { buildKey } from "@/lib/swr/use-build";
import { isBuildsKey } from "@/lib/swr/use-builds";

/**
 * Rebuild (a new build of the same repositories and modules, refs resolved again; it opens when queued) and,
 * while the build runs, Extend (its remaining life becomes the chosen time, counted from now), for its creator or
 * an admin (`mayExtend`).
 */
export function RebuildExtendActions({ build, mayExtend }: { build: Build; mayExtend: boolean }) {
  const { canAct } = useCanAct();
  const { mutate } = useSWRConfig();
  const router = useRouter();
  const { data: config } = useAppConfig(build.status === "running");
  const [busy, setBusy] = useState<"rebuild" | "extend">();
  const [error, setError] = useState<string>();
  const choices = config?.ttl.choices ?? [];
  const [ttl, setTtl] = useState<number>();
  const chosen = ttl ?? config?.ttl.default_seconds ?? choices[0];

  async function act(action: "rebuild" | "extend") {
    setBusy(action);
    setError(undefined);
    try {
      if (action === "rebuild") {
        const { data } = await sendJson<Build>(`${buildKey(build.build_id)}/rebuild`, "POST");
        void mutate(isBuildsKey);
        router.push(`/?build=${encodeURIComponent(data.build_id)}`, { scroll: false });
      } else {
        const { data } = await sendJson<Build>(`${buildKey(build.build_id)}/extend`, "POST", { ttl_seconds: chosen });
        await mutate(buildKey(build.build_id), (current?: Build) => ({ ...current, ...data }), { revalidate: true });
        void mutate(isBuildsKey);
      }
    } catch (e) {
      setError(e instanceof ApiError ? e.message : `The build could not be ${action === "rebuild" ? "rebuilt" : "extended"}.`);
    } finally {
      setBusy(undefined);
    }
  }

  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2">
        <Button onClick={() => void act("rebuild")} busy={busy === "rebuild"} disabled={!canAct} title="A new build of the same repositories and modules, at their newest commits">
          Rebuild
        </Button>
        {build.status === "running" && mayExtend && chosen !== undefined && (
          <span className="inline-flex items-center gap-1">
            <label className="sr-only" htmlFor={`extend-${build.build_id}`}>
              Time left after extending
            </label>
            <select
              id={`extend-${build.build_id}`}
              value={chosen}
              onChange={(e) => setTtl(Number(e.target.value))}
              className={`${inputClass} h-10 w-28`}
              disabled={!canAct}
            >
              {[...new Set([...choices, chosen])].sort((a, b) => a - b).map((seconds) => (
                <option key={seconds} value={seconds}>
                  {formatTtl(seconds)}
                </option>
              ))}
            </select>
            <Button onClick={() => void act("extend")} busy={busy === "extend"} disabled={!canAct}>
              Extend
            </Button>
          </span>
        )}
      </div>
      {error && <Alert tone="error">{error}</Alert>}
    </div>
  );
}
