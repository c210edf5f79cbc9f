import createNextIntlPlugin from "next-intl/plugin";

/**
 * The JSON API's paths. The proxy (proxy.ts), which costs about as much as a whole route handler, does not run
 * for them (docs/performance.md): their security headers come from `headers()` below instead, and a JSON body
 * needs no nonce, so their policy is the strictest one.
 */
const API_PATH_PREFIXES = [
  "rates",
  "builds",
  "users",
  "app-config",
  "convert",
  "currencies",
  "hooks",
  "openapi.json",
  "bench",
  "healthz",
  "readyz",
];

const API_SECURITY_HEADERS = [
  { key: "Content-Security-Policy", value: "default-src 'none'; frame-ancestors 'none'" },
  // For browsers without CSP frame-ancestors: no framing (clickjacking).
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "same-origin" },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Serve /rates and /rates/ alike: API clients POST to the trailing-slash form and must not get a 308.
  skipTrailingSlashRedirect: true,
  experimental: {
    // A server loads a route's code when the route is first asked for, not every route's at start (Next's memory
    // guide): an instance that serves only the API never loads the dashboard's or /docs' server code. It answers
    // sooner after a start, with 0.25 s less CPU and 20 MB less resident memory; the first visit to a page after
    // a start waits for that page's code once.
    preloadEntriesOnStart: false,
  },
  // Native and server-only packages stay out of the bundle and load from node_modules at run time.
  serverExternalPackages: [
    "next-swagger-doc",
    "swagger-jsdoc",
    "better-sqlite3",
    "bcrypt",
    "@prisma/adapter-better-sqlite3",
    "@prisma/client",
    "prisma",
  ],
  poweredByHeader: false,
  turbopack: {
    // Swagger UI's ApiDOM packages from their CommonJS builds: Turbopack's ESM builds of them leave OpenAPI 3.1
    // documents failing with "refract is not a function" (swagger-api/swagger-ui#10599, vercel/next.js#86507).
    resolveAlias: Object.fromEntries(
      [
        "apidom-ast",
        "apidom-core",
        "apidom-error",
        "apidom-ns-json-schema-2019-09",
        "apidom-ns-json-schema-2020-12",
        "apidom-ns-json-schema-draft-4",
        "apidom-ns-json-schema-draft-6",
        "apidom-ns-json-schema-draft-7",
        "apidom-ns-openapi-2",
        "apidom-ns-openapi-3-0",
        "apidom-ns-openapi-3-1",
        "apidom-ns-openapi-3-2",
      ].map((name) => [`@swagger-api/${name}`, `./node_modules/@swagger-api/${name}/src/index.cjs`]),
    ),
  },
  async rewrites() {
    // The builds console's own requests for its React payload (`RSC: 1`, sent as it opens a build or closes it):
    // the page's, not the list's JSON. proxy.ts serves the page to a browser's navigation, which prefers HTML; Next
    // hides the RSC header from the proxy, so this rule, which sees it, serves the payload.
    return {
      beforeFiles: [{ source: "/builds", has: [{ type: "header", key: "rsc" }], destination: "/builds-console" }],
    };
  },
  async headers() {
    // Set before the route handler answers; a header the handler sets too keeps this value. One rule for every
    // prefix: Next tests each rule against every request, the pages' and assets' included, one after the other.
    // Its groups are unnamed, so a match has no parameters: a named `:path*` is split into segments on every
    // match and then offered to each header's key and value. `((?:/[^/]+)*)` matches the paths `/:path*` does:
    // the prefix alone, or followed by non-empty segments (and the optional trailing slash Next adds).
    const prefixes = API_PATH_PREFIXES.map((prefix) => prefix.replaceAll(".", "\\.")).join("|");
    return [{ source: `/(${prefixes})((?:/[^/]+)*)`, headers: API_SECURITY_HEADERS }];
  },
};

// The pages' language comes from i18n/request.ts (a cookie, else Accept-Language): no locale in any URL.
export default createNextIntlPlugin("./i18n/request.ts")(nextConfig);
