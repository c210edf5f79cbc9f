import { getTranslations } from "next-intl/server";
import { getOpenApiDocument } from "@/lib/openapi/document";
import { listOperationsByTag } from "@/lib/openapi/operations";

/**
 * What /docs shows where scripts do not run (Swagger UI is all script): a plain list of the operations, read on
 * the server from the same document /openapi.json serves, and where that document is. Hidden wherever scripts
 * run, where Swagger UI shows the same and more.
 */
export async function OperationsWithoutScripts() {
  const t = await getTranslations("docs");
  const title = (await getTranslations("meta"))("docsTitle");
  const groups = listOperationsByTag(getOpenApiDocument());
  return (
    <div className="hidden px-4 sm:px-8 noscript:block" data-testid="docs-without-scripts">
      <h1 className="pt-6 text-2xl font-semibold">{title}</h1>
      <p className="py-4 text-slate-700 dark:text-slate-300">
        {t.rich("needsScript", {
          link: (chunks) => (
            <a className="font-medium text-indigo-700 underline dark:text-indigo-300" href="/openapi.json">
              {chunks}
            </a>
          ),
        })}
      </p>
      {groups.map((group) => (
        <section key={group.tag} aria-label={group.tag} className="py-3">
          <h2 className="text-lg font-semibold">{group.tag}</h2>
          <ul className="mt-2 flex flex-col gap-1 text-sm">
            {group.operations.map((operation) => (
              <li key={`${operation.method} ${operation.path}`} className="flex flex-wrap gap-x-3">
                <code className="w-14 font-semibold">{operation.method}</code>{" "}
                <code className="break-all">{operation.path}</code>{" "}
                <span className="text-slate-600 dark:text-slate-400">{operation.summary}</span>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
