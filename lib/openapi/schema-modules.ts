/**
 * Every module whose zod schemas appear in the API description. Importing them registers their schemas
 * (those with `.meta({ id })`) in zod's global registry, from which lib/openapi/document.ts generates the
 * OpenAPI components: the same schemas that validate the requests.
 */
import "../users/schemas";
import "../rates/schemas";
import "../rates/webhooks/schemas";
import "../builds/schemas";
import "../builds/install-cache/schemas";
import "../gateway/schemas";
import "../health/schemas";
