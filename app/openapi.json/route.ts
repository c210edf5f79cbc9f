import { json, route } from "@/lib/http/route";
import { getOpenApiDocument } from "@/lib/openapi/document";

export const GET = route(() => json(getOpenApiDocument(), { headers: { "Cache-Control": "public, max-age=300" } }));
