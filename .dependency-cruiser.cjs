/**
 * Import rules (`npm run lint:imports`): imports flow one way, app -> components -> lib, and nothing in the
 * product reaches into the tests, the scripts, the bench or tools/; tests/ and scripts/ keep to themselves
 * and share what both need through tools/; no module imports itself back through others. Within lib/, the process's
 * own ground floor (lib/server/) sits below everything, the data layer and the topology below the domains, the request
 * plumbing (lib/http/) apart from the data layer, and only lib/db/ knows the dialect. What names every domain (the
 * background jobs, jobs.ts) sits at the top, beside instrumentation.ts.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import circle: the modules cannot be read, loaded or tested one before the other.",
      from: {},
      to: { circular: true },
    },
    {
      name: "lib-stays-below",
      severity: "error",
      comment: "lib/ is the application: it never imports the routes, the UI, the tests, the scripts or the bench.",
      from: { path: "^lib/" },
      to: { path: "^(app|components|tests|scripts|bench|tools)/" },
    },
    {
      name: "dialect-in-db-only",
      severity: "error",
      comment:
        "Only lib/db/ knows which database this is: a statement spelled per database lives in lib/db/statements/, and 'one instance or several' is lib/topology's question.",
      from: { pathNot: "^lib/db/" },
      to: { path: "^lib/db/dialect\\.ts$" },
    },
    {
      name: "server-is-the-ground-floor",
      comment:
        "lib/server/ is what every layer may use (the environment, the data folder, process-wide state, the job type and its scheduler): it imports nothing of lib/ but itself and DATABASE_URL's parsing, so that any layer can import it without pulling in another. The list of jobs, which names the domains, is jobs.ts at the top.",
      severity: "error",
      from: { path: "^lib/server/" },
      to: {
        path: "^(lib|app|components)/|^(jobs|instrumentation|proxy)\\.ts$",
        pathNot: "^lib/server/|^lib/db/database-url\\.ts$",
      },
    },
    {
      name: "http-apart-from-db",
      severity: "error",
      comment:
        "lib/http/ is the plumbing every handler shares: it parses, answers and guards requests, and reads no data (what it needs of the database errors, their shape, is lib/http/prisma-errors.ts).",
      from: { path: "^lib/http/" },
      to: { path: "^lib/db/" },
    },
    {
      name: "jobs-at-the-top",
      severity: "error",
      comment:
        "jobs.ts lists every domain's background work and is started by instrumentation.ts only: nothing in lib/, components/ or app/ imports the composition.",
      from: { path: "^(lib|components|app)/" },
      to: { path: "^(jobs|instrumentation)\\.ts$" },
    },
    {
      name: "db-below-the-domains",
      severity: "error",
      comment:
        "lib/db/ serves every domain and imports none: only the process's own env and data folder (lib/server/).",
      from: { path: "^lib/db/" },
      to: { path: "^lib/", pathNot: "^lib/(db|server)/" },
    },
    {
      name: "topology-below-the-domains",
      severity: "error",
      comment:
        "The domains ask lib/topology (and its lib/cluster) about the other instances; the cluster code is handed what it needs from them (lib/builds/membership.ts), it never imports them.",
      from: { path: "^lib/(topology|cluster)/" },
      to: { path: "^lib/(builds|rates|gateway|backups|health|metrics|openapi|swr)/" },
    },
    {
      name: "cluster-behind-topology",
      severity: "error",
      comment:
        "lib/cluster/ is lib/topology's cluster implementation: the domains, routes and UI reach it only through lib/topology, so that none of them knows whether it runs alone or in a cluster.",
      from: { path: "^(app|components|lib)/|^(instrumentation|proxy|jobs)\\.ts$", pathNot: "^lib/(topology|cluster)/" },
      to: { path: "^lib/cluster/" },
    },
    {
      name: "components-below-app",
      severity: "error",
      comment: "components/ is the UI the pages use: it never imports a route or page, nor the tests or tools.",
      from: { path: "^components/" },
      to: { path: "^(app|tests|scripts|bench|tools)/" },
    },
    {
      name: "product-without-tools",
      severity: "error",
      comment:
        "The product (app/, proxy.ts, instrumentation.ts, jobs.ts) never imports the tests, the scripts or the bench.",
      from: { path: "^(app/|proxy\\.ts$|instrumentation\\.ts$|jobs\\.ts$)" },
      to: { path: "^(tests|scripts|bench|tools)/" },
    },
    {
      name: "tests-apart-from-scripts",
      severity: "error",
      comment: "The tests and the operator's scripts do not import each other; what both need lives in tools/.",
      from: { path: "^tests/" },
      to: { path: "^scripts/" },
    },
    {
      name: "scripts-apart-from-tests",
      severity: "error",
      comment: "The operator's scripts never import the tests; what both need lives in tools/.",
      from: { path: "^scripts/" },
      to: { path: "^(tests|bench)/" },
    },
    {
      name: "tools-below-everything",
      severity: "error",
      comment: "tools/ serves the tests, the bench and the scripts: it imports none of them, nor the product.",
      from: { path: "^tools/" },
      to: { path: "^(app|components|lib|tests|scripts|bench)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|\\.next)/|^data/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".mjs", ".js", ".cjs", ".json"],
    },
    skipAnalysisNotInRules: true,
  },
};
