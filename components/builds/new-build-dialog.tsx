"use client";

import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { useSWRConfig } from "swr";
import { Modal } from "@/components/ui/modal";
import { isBuildsKey } from "@/lib/swr/use-builds";
import { consoleHrefOf } from "./console-path";
import { NewBuildForm } from "./new-build-form";

/** The "New build" form in a dialog; a started build opens its detail so its stages can be watched. */
export function NewBuildDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const t = useTranslations("builds");
  const router = useRouter();
  const { mutate } = useSWRConfig();
  return (
    <Modal open={open} onClose={onClose} title={t("newBuild")}>
      {open && (
        <NewBuildForm
          onCancel={onClose}
          onCreated={(buildId) => {
            void mutate(isBuildsKey);
            onClose();
            router.push(consoleHrefOf(buildId), { scroll: false });
          }}
        />
      )}
    </Modal>
  );
}
