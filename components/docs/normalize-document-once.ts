import openApi31Strategy from "swagger-client/es/resolver/strategies/openapi-3-1-apidom/index.js";

type ResolveSubtree = (spec: object, path: string[], options?: object) => Promise<unknown>;

/** The part of Swagger UI's system this plugin reads. */
export interface SwaggerUISystem {
  fn: { resolveSubtree: ResolveSubtree };
}

/**
 * A Swagger UI plugin: an OpenAPI 3.1 document is normalized once, not on every opening of an operation.
 *
 * Swagger UI resolves an operation's references when it is opened. For an OpenAPI 3.1 document swagger-client
 * first normalizes the whole document, converting it to ApiDOM, and stores the converted document for its resolver
 * under an object it then copies (swagger-api/swagger-ui#10748). The resolver never finds it and converts the
 * document again: about a third of a second a click for this API's document, in which the page does nothing else.
 * Handing the resolver the same normalized document each time lets its cache do what it was written for.
 */
export function normalizeDocumentOnce(system: SwaggerUISystem) {
  const resolveSubtree = system.fn.resolveSubtree;
  // By the document Swagger UI holds: the same object on every opening until the document changes.
  const normalized = new WeakMap<object, object>();

  return {
    fn: {
      resolveSubtree: (spec: object, path: string[], options?: object) => {
        if (!openApi31Strategy.match(spec)) return resolveSubtree(spec, path, options);
        let document = normalized.get(spec);
        if (!document) {
          document = openApi31Strategy.normalize(spec);
          normalized.set(spec, document);
        }
        return resolveSubtree(document, path, options);
      },
    },
  };
}
