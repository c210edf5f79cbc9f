"use client";

import { useTranslations } from "next-intl";
import { useEffect, useId, useRef } from "react";

interface ModalProps {
  open: boolean;
  onClose: () => void;
  title: string;
  children: React.ReactNode;
  /** "center" for small forms, "side" for the build detail drawer. */
  placement?: "center" | "side";
  /** Extra controls shown beside the close button. */
  headerActions?: React.ReactNode;
}

/**
 * A modal on the native <dialog>: the browser traps focus, closes on Escape and restores focus to the opener,
 * so none of that is re-implemented here.
 */
export function Modal({ open, onClose, title, children, placement = "center", headerActions }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const t = useTranslations("panel");

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      // showModal focuses the first focusable element, the Close button; a form marks its first field instead.
      dialog.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    }
    if (!open && dialog.open) dialog.close();
  }, [open]);

  // The browser's own dialog style caps max-width at 100% - 2em - 6px, which pushed the full-width drawer
  // off-centre on a phone: both frames set their own caps.
  const frame =
    placement === "side"
      ? "m-0 ml-auto h-dvh max-h-dvh w-full max-w-full rounded-none sm:max-w-3xl sm:rounded-l-xl"
      : "m-auto max-h-[calc(100dvh-2rem)] w-[calc(100%-2rem)] max-w-md rounded-xl";

  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: Escape closes the dialog through onCancel; the click is the backdrop's.
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      // React passes a nested dialog's close and cancel up to this one (a confirmation inside the build
      // drawer): only this dialog's own events close it.
      onClose={(event) => {
        if (event.target === event.currentTarget) onClose();
      }}
      onCancel={(event) => {
        if (event.target !== event.currentTarget) return;
        event.preventDefault();
        onClose();
      }}
      // A click on the backdrop lands on the dialog element itself; Escape closes it through onCancel.
      onClick={(event) => {
        if (event.target === event.currentTarget) onClose();
      }}
      className={`${frame} border border-slate-200 bg-white p-0 text-slate-900 shadow-2xl backdrop:bg-slate-950/50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100`}
    >
      {open && (
        <div className={`flex flex-col ${placement === "side" ? "h-full" : "max-h-[calc(100dvh-2rem)]"}`}>
          <div className="flex items-center justify-between gap-3 border-b border-slate-200 px-4 py-3 sm:px-5 dark:border-slate-800">
            <h2 id={titleId} className="min-w-0 truncate text-base font-semibold">
              {title}
            </h2>
            <div className="flex shrink-0 items-center gap-2">
              {headerActions}
              <button
                type="button"
                onClick={onClose}
                aria-label={t("close")}
                className="rounded-md p-1.5 text-slate-600 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-600 dark:text-slate-300 dark:hover:bg-slate-800"
              >
                <svg aria-hidden viewBox="0 0 20 20" className="size-5" fill="currentColor">
                  <path d="M6.28 5.22a.75.75 0 0 0-1.06 1.06L8.94 10l-3.72 3.72a.75.75 0 1 0 1.06 1.06L10 11.06l3.72 3.72a.75.75 0 1 0 1.06-1.06L11.06 10l3.72-3.72a.75.75 0 0 0-1.06-1.06L10 8.94 6.28 5.22Z" />
                </svg>
              </button>
            </div>
          </div>
          <div className="min-h-0 min-w-0 flex-1 overflow-y-auto px-4 py-4 sm:px-5">{children}</div>
        </div>
      )}
    </dialog>
  );
}
