"use client";

import { useTranslations } from "next-intl";
import { Alert } from "./alert";
import { Button } from "./button";
import { Modal } from "./modal";

interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: React.ReactNode;
  /** The confirming button's label: the action itself ("Destroy build"), never a bare "OK". */
  confirmLabel: string;
  /** The button that backs out, worded as what it keeps ("Keep it"). */
  dismissLabel?: string;
  tone?: "danger" | "primary";
  busy?: boolean;
  error?: string;
  onConfirm: () => void;
  onClose: () => void;
}

/**
 * Asks before an action that cannot be undone. The dismissing button takes the focus, so an Enter pressed out
 * of habit keeps things as they are.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  dismissLabel,
  tone = "danger",
  busy = false,
  error,
  onConfirm,
  onClose,
}: ConfirmDialogProps) {
  const t = useTranslations("panel");
  return (
    <Modal open={open} onClose={busy ? () => {} : onClose} title={title}>
      <div className="flex flex-col gap-4 text-sm">
        <div className="text-slate-700 dark:text-slate-300">{children}</div>
        {error && <Alert tone="error">{error}</Alert>}
        <div className="flex flex-wrap justify-end gap-2">
          <Button onClick={onClose} disabled={busy} data-autofocus>
            {dismissLabel ?? t("keepIt")}
          </Button>
          <Button variant={tone} onClick={onConfirm} busy={busy}>
            {confirmLabel}
          </Button>
        </div>
      </div>
    </Modal>
  );
}
