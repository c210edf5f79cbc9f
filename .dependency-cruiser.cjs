/**
 * Import rules (`npm run lint:imports`): imports flow one way, app -> components -> lib, and nothing in the
 * product reaches into the tests, the scripts or the bench; no module imports itself back through others.
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
      to: { path: "^(app|components|tests|scripts|bench)/" },
    },
    {
      name: "components-below-app",
      severity: "error",
      comment: "components/ is the UI the pages use: it never imports a route or page, nor the tests or tools.",
      from: { path: "^components/" },
      to: { path: "^(app|tests|scripts|bench)/" },
    },
    {
      name: "product-without-tools",
      severity: "error",
      comment: "The product (app/, proxy.ts, instrumentation.ts) never imports the tests, the scripts or the bench.",
      from: { path: "^(app/|proxy\\.ts$|instrumentation\\.ts$)" },
      to: { path: "^(tests|scripts|bench)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|\\.next|data)/" },
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
