"use client";

import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { Button } from "./button";

/**
 * Copies a text to the clipboard and says so for two seconds. Where the Clipboard API is refused (an insecure
 * origin, a denied permission) it says that instead of failing silently.
 */
export function CopyButton({ text, label }: { text: string; label?: string }) {
  const t = useTranslations("panel");
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 2_000);
    return () => clearTimeout(timer);
  }, [state]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      setState("failed");
    }
  }

  return (
    <>
      <Button size="sm" onClick={() => void copy()}>
        {state === "copied" ? t("copied") : (label ?? t("copy"))}
      </Button>
      <span role="status" className={state === "failed" ? "text-xs text-red-700 dark:text-red-300" : "sr-only"}>
        {state === "copied" ? t("copiedStatus") : state === "failed" ? t("copyRefused") : ""}
      </span>
    </>
  );
}
