/**
 * Where every rate served here comes from. The central bank allows reproducing its figures with the source
 * cited, so each rate response names it: a `Link` header (RFC 8288, rel "via": the resource the values were
 * taken from), which leaves the bodies, and so their ETags and whoever compares them byte for byte, as they
 * were; GET /rates/status also names it in its body. The bank's own address, not BCV_URL, which may point at
 * a mirror or a test double.
 */
export const RATE_SOURCE = { name: "Banco Central de Venezuela", url: "https://www.bcv.org.ve/" } as const;

/**
 * The bank's terms of use: its figures may be used without profit with the source cited; any other use needs
 * its written consent. The badge, the embedded card and docs/rates.md link them; whether a use needs that
 * consent is the operator's to decide.
 */
export const RATE_SOURCE_TERMS_URL = "https://www.bcv.org.ve/terminos-condiciones";

export const RATE_SOURCE_HEADERS: Readonly<Record<string, string>> = {
  Link: `<${RATE_SOURCE.url}>; rel="via"; title="${RATE_SOURCE.name}"`,
};
