import type { ButtonHTMLAttributes } from "react";

type Variant = "primary" | "secondary" | "danger" | "danger-subtle" | "ghost";
type Size = "sm" | "md";

const variants: Record<Variant, string> = {
  primary:
    "bg-indigo-600 text-white hover:bg-indigo-700 disabled:bg-slate-300 disabled:text-slate-700 dark:bg-indigo-400 dark:text-slate-950 dark:hover:bg-indigo-300 dark:disabled:bg-slate-700 dark:disabled:text-slate-300",
  secondary:
    "border border-slate-300 bg-white text-slate-800 hover:bg-slate-100 disabled:text-slate-500 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800 dark:disabled:text-slate-400 disabled:border-dashed disabled:bg-transparent disabled:hover:bg-transparent dark:disabled:bg-transparent",
  danger:
    "bg-red-700 text-white hover:bg-red-800 disabled:bg-slate-300 disabled:text-slate-700 dark:bg-red-500 dark:text-slate-950 dark:hover:bg-red-400 dark:disabled:bg-slate-700 dark:disabled:text-slate-300",
  "danger-subtle":
    "border border-red-300 bg-white text-red-800 hover:bg-red-50 disabled:border-dashed disabled:border-slate-300 disabled:text-slate-500 dark:border-red-800 dark:bg-slate-900 dark:text-red-200 dark:hover:bg-red-950/50 dark:disabled:border-slate-600 dark:disabled:text-slate-400",
  ghost:
    "text-slate-700 hover:bg-slate-200/70 disabled:text-slate-500 dark:text-slate-200 dark:hover:bg-slate-800 dark:disabled:text-slate-400 disabled:opacity-60 disabled:hover:bg-transparent",
};

const sizes: Record<Size, string> = {
  sm: "h-8 px-2.5 text-sm",
  md: "h-10 px-4 text-sm",
};

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: Variant;
  size?: Size;
  /** Shows a spinner and blocks the button while an action runs. */
  busy?: boolean;
}

/** A button's look, for a link that acts as one (a download). */
export function buttonClassName(variant: Variant = "secondary", size: Size = "md"): string {
  return `inline-flex items-center justify-center gap-2 rounded-md font-medium whitespace-nowrap transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed dark:focus-visible:outline-indigo-400 ${variants[variant]} ${sizes[size]}`;
}

export function Button({
  variant = "secondary",
  size = "md",
  busy = false,
  className = "",
  children,
  ...props
}: ButtonProps) {
  return (
    <button
      type="button"
      {...props}
      disabled={props.disabled || busy}
      aria-busy={busy || undefined}
      className={`${buttonClassName(variant, size)} ${className}`}
    >
      {busy && <Spinner />}
      {children}
    </button>
  );
}

export function Spinner({ className = "size-4" }: { className?: string }) {
  return (
    <span
      aria-hidden
      className={`inline-block animate-spin rounded-full border-2 border-current border-r-transparent ${className}`}
    />
  );
}
