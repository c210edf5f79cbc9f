import { constantResponse } from "../constant.js";

/** GET /{name}: the same constant from a route with a path parameter, which Next matches and parses. */
export async function GET(request, { params }) {
  await params;
  return constantResponse(request);
}
