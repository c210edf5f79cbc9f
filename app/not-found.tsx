import type { Metadata } from "next";

export const metadata: Metadata = { title: "Page not found" };

/** Any path that is neither a page nor an API route: our own page, in both colour schemes, with the way back. */
export default function NotFound() {
  return (
    <main
      id="main-content"
      tabIndex={-1}
      className="outline-none mx-auto flex max-w-xl flex-col items-start gap-4 px-4 py-16 sm:px-6"
    >
      <p className="font-mono text-sm font-semibold text-indigo-700 dark:text-indigo-300">404</p>
      <h1 className="text-2xl font-semibold tracking-tight">This page does not exist</h1>
      <p className="text-slate-700 dark:text-slate-300">
        The address may be mistyped or out of date. A build&apos;s page is{" "}
        <code className="font-mono text-sm">/builds/&lt;id&gt;</code>; the API is described at{" "}
        <a className="text-indigo-700 underline dark:text-indigo-300" href="/docs">
          /docs
        </a>
        .
      </p>
      <a
        href="/"
        className="inline-flex h-10 items-center rounded-md bg-indigo-600 px-4 text-sm font-medium text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 dark:bg-indigo-400 dark:text-slate-950 dark:hover:bg-indigo-300"
      >
        Back to the dashboard
      </a>
    </main>
  );
}
