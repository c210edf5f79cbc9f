import { cameFromLocalOrTrusted, clientAddress } from "../http/client-address";

/**
 * The visitor's address, for what the app counts per visitor of the gateway (wrong bypass secrets): the address
 * nginx saw, which it sends in X-Gateway-Client (replacing any a client sent), when the request comes from the
 * gateway's side; the request's own client otherwise.
 */
export function gatewayClient(headers: Headers): string {
  const told = headers.get("x-gateway-client");
  return told && cameFromLocalOrTrusted(headers) ? told : clientAddress(headers);
}
