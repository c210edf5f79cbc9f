import { constantResponse } from "../constant.js";

/** GET /floor: constant JSON of a rate's size; with `?bytes=N`, constant JSON of N bytes. */
export function GET(request) {
  return constantResponse(request);
}
