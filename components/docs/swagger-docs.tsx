"use client";

import dynamic from "next/dynamic";
import "swagger-ui-react/swagger-ui.css";

// Swagger UI is large and browser-only: it is loaded on /docs alone, never in the dashboard's bundle.
const SwaggerUI = dynamic(() => import("swagger-ui-react"), {
  ssr: false,
  loading: () => <p className="p-8 text-slate-600">Loading the API description…</p>,
});

export function SwaggerDocs() {
  return (
    // Swagger UI has no dark theme; a light panel keeps its text readable when the system is dark.
    <main className="min-h-screen bg-white text-slate-900">
      <div className="mx-auto max-w-6xl py-4">
        <SwaggerUI url="/openapi.json" persistAuthorization tryItOutEnabled docExpansion="list" />
      </div>
    </main>
  );
}
