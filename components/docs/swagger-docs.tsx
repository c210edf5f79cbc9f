"use client";

import dynamic from "next/dynamic";
import { useTranslations } from "next-intl";
import { useEffect, useRef, useState } from "react";
import "swagger-ui-react/swagger-ui.css";
import "./swagger-docs.css";
import { normalizeDocumentOnce } from "./normalize-document-once";

// Browser only: Swagger UI reads the window as it loads.
const SwaggerUI = dynamic(() => import("swagger-ui-react"), { ssr: false });

/**
 * Swagger UI (swagger-ui-react), loaded on /docs alone and only in the browser, served from this origin (no
 * inline script, no CDN). Its ApiDOM modules are bundled from their CommonJS builds (next.config.mjs), without
 * which OpenAPI 3.1 documents fail under Turbopack. `children` stand where scripts do not run.
 */
export function SwaggerDocs({ children }: { children?: React.ReactNode }) {
  const container = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<"loading" | "ready" | "failed">("loading");
  const t = useTranslations("docs");
  // Read when Swagger UI has drawn, in the page's language then; Swagger UI is set up once per page.
  const names = useRef({ about: "", operations: "" });
  names.current = { about: t("about"), operations: t("operations") };

  useFollowDarkScheme();

  return (
    // The colours of Swagger UI's own dark mode (#1c2022) around it, so the page is one surface. Not a <main>:
    // Swagger UI renders its operations in one of its own, and a page has a single main landmark.
    <div
      id="main-content"
      tabIndex={-1}
      className="outline-none min-h-screen bg-white text-slate-900 dark:bg-[#1c2022] dark:text-slate-100"
    >
      <div className="mx-auto max-w-6xl py-4">
        {state === "loading" && (
          <p className="p-8 text-slate-600 noscript:hidden dark:text-slate-300">{t("loading")}</p>
        )}
        {state === "failed" && (
          <p role="alert" className="p-8 text-red-700 dark:text-red-300">
            {t.rich("failed", {
              link: (chunks) => (
                <a className="underline" href="/openapi.json">
                  {chunks}
                </a>
              ),
            })}
          </p>
        )}
        <div ref={container}>
          <SwaggerUI
            url="/openapi.json"
            persistAuthorization
            tryItOutEnabled
            docExpansion="list"
            plugins={[normalizeDocumentOnce]}
            onComplete={() => {
              labelOperations(container.current, names.current);
              setState("ready");
            }}
          />
        </div>
        {/* After Swagger UI's place, so that what it draws comes first in the page. */}
        {children}
      </div>
    </div>
  );
}

/**
 * Swagger UI heads the page with the API's title (h1), then each group of operations with an h3: a screen
 * reader's outline skips a level. A visually hidden h2 before the groups fills it. Swagger UI's own React
 * tree is otherwise left as it is: the heading is put beside its children, which it never replaces wholesale,
 * and React leaves alone attributes it does not set.
 */
function labelOperations(root: HTMLElement | null, names: { about: string; operations: string }) {
  // The API's title, version and description stand outside Swagger UI's <main>: a landmark of their own, so
  // nothing on the page is outside one.
  const info = root?.querySelector(".information-container");
  if (info && !info.getAttribute("role")) {
    info.setAttribute("role", "region");
    info.setAttribute("aria-label", names.about);
  }
  const operations = root?.querySelector("#operations");
  if (!operations || operations.querySelector(":scope > h2[data-operations-heading]")) return;
  const heading = document.createElement("h2");
  heading.className = "sr-only";
  heading.dataset.operationsHeading = "";
  heading.textContent = names.operations;
  operations.prepend(heading);
}

/**
 * Swagger UI's dark mode is a `dark-mode` class on <html> (its CSS: `html.dark-mode .swagger-ui …`), which its
 * standalone top bar toggles; without that bar, it follows the system's colour scheme like the rest of the app,
 * also when the scheme changes while the page is open. The class goes when the page does.
 */
function useFollowDarkScheme() {
  useEffect(() => {
    const dark = window.matchMedia("(prefers-color-scheme: dark)");
    const follow = () => document.documentElement.classList.toggle("dark-mode", dark.matches);
    follow();
    dark.addEventListener("change", follow);
    return () => {
      dark.removeEventListener("change", follow);
      document.documentElement.classList.remove("dark-mode");
    };
  }, []);
}
