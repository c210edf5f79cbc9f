// swagger-ui-dist ships no types; this is the part of its bundle's API that /docs uses.
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  interface SwaggerUIOptions {
    domNode: HTMLElement;
    url: string;
    persistAuthorization?: boolean;
    tryItOutEnabled?: boolean;
    docExpansion?: "list" | "full" | "none";
    onComplete?: () => void;
  }
  const SwaggerUIBundle: (options: SwaggerUIOptions) => unknown;
  export default SwaggerUIBundle;
}
