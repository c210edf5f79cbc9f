import { useId } from "react";

interface PanelProps {
  title: string;
  /** Buttons or controls shown at the right of the title. */
  actions?: React.ReactNode;
  children: React.ReactNode;
  className?: string;
  /** An anchor for links within the page ("#latest-rate"). */
  id?: string;
}

/** A titled section of a page; its heading names the region for screen readers. */
export function Panel({ title, actions, children, className = "", id }: PanelProps) {
  const headingId = useId();
  return (
    <section
      id={id}
      aria-labelledby={headingId}
      className={`rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5 dark:border-slate-800 dark:bg-slate-900 ${className}`}
    >
      <div className="mb-4 flex flex-wrap items-center justify-between gap-3">
        <h2 id={headingId} className="text-base font-semibold tracking-tight">
          {title}
        </h2>
        {/* max-w-full: on a phone the actions wrap under the title and shrink to the card (the currency picker
            of "Latest rate" stuck out of its card at 320 px). */}
        {actions && <div className="flex max-w-full min-w-0 flex-wrap items-center gap-2">{actions}</div>}
      </div>
      {children}
    </section>
  );
}
