// The part of swagger-client's API that /docs' Swagger UI plugin (normalize-document-once.ts) and its test use; the
// package ships no types. Swagger UI (swagger-ui-react) imports these same modules.
declare module "swagger-client/es/resolver/strategies/openapi-3-1-apidom/index.js" {
  const strategy: {
    match(spec: object): boolean;
    normalize(spec: object): object;
  };
  export default strategy;
}

declare module "swagger-client/es/subtree-resolver/index.js" {
  type ResolveSubtree = (
    spec: object,
    path: string[],
    options?: object,
  ) => Promise<{ spec: unknown; errors: { fullPath?: string[] }[] }>;
  export function makeResolveSubtree(defaultOptions: { strategies: object[] }): ResolveSubtree;
}
