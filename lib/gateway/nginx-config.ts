/**
 * The gateway's nginx site: the one front door of every preview. `npm run gateway` writes it into the data folder
 * and runs it; deploy/nginx/previews.conf is the same text for production (TLS, HTTP to HTTPS), written by
 * `npm run gateway -- --print-production-config` and checked against this function by a unit test.
 *
 * How a request is routed:
 * 1. A Host outside the domain meets the default server, which answers 421 itself and proxies nothing.
 * 2. A name under the domain goes through `auth_request` to the app's GET /gateway/resolve, which answers 200 with
 *    `X-Gateway-Upstream: ip:port` (the build's preview, on the host that runs it), or 403 when there is nothing
 *    to proxy. nginx keeps each answer 1 s per Host (proxy_cache), so the app is asked at most once a second per
 *    name however busy a preview is, and a new or moved preview is reached within 2 s, with no reload of nginx.
 * 3. 200: the request is proxied to exactly that address. nginx has no `resolver`, so an upstream can only be an IP
 *    literal, and it only ever comes from the app's answer, never from the request. An address of this host's
 *    previews (keptUpstreams) is mapped to a named upstream that keeps its connections open; any other is reached
 *    with a connection per request.
 *    403: GET /gateway/page shows the app's 404, 410 or 503 page under the name; for a sleeping preview the visit
 *    wakes it (lib/gateway/wake-on-visit.ts). A preview that does not answer: the same page route, which says so (502).
 * The previews' WebSocket (Odoo 16's /websocket) and long polling (/longpolling) pass with long read timeouts, and
 * every preview receives X-Forwarded-For, -Proto and -Host as the gateway saw them (Odoo's proxy_mode).
 *
 * Private previews (lib/gateway/access.ts): the resolver also receives the visitor's gateway cookie and
 * X-Preview-Bypass header, since its answer then depends on the visitor. Its cache key is the Host and the gateway
 * cookie's value: an admitted visitor's 200 is kept for that cookie only, and the answer to visitors without one
 * (a 403 for a private preview) is shared by them all, as before. Requests with X-Preview-Bypass are neither
 * answered from the cache nor stored in it: a bypass secret is never written to the cache folder, and a wrong one
 * is asked about every time. Before a request reaches a preview, nginx removes the gateway's cookie from its
 * Cookie header (the preview's own cookies pass) and the X-Preview-Bypass header; /__gateway/admit and
 * /__gateway/share/<secret> (the ticket and the share link) go to the app, never to the preview.
 */
/** The gateway's cookie: `__Host-` under https, so that no other name under the domain can set or shadow it. */
export function gatewayCookieName(scheme: "http" | "https"): string {
  return scheme === "https" ? "__Host-preview-access" : "preview-access";
}

export interface GatewayNginxOptions {
  /** The preview domain: names are `<label>.<domain>`. */
  domain: string;
  /** nginx `listen` parameters of the door, such as `127.0.0.1:8080` or `443 ssl`. */
  listen: string[];
  /** Where the app answers: `host:port` (an instance, or several as `server` lines). */
  appServers: string[];
  /** Where nginx keeps the resolver's answers. */
  cacheFolder: string;
  /** The largest request body a preview receives (nginx size: `128m`). */
  maxBodySize: string;
  /** What X-Forwarded-Proto says: `$scheme`, or the scheme people use in front of a plain-HTTP gateway. */
  forwardedProto: string;
  /** TLS: the wildcard certificate and key, and where plain HTTP is answered with a redirect to HTTPS. */
  tls?: { certificate: string; key: string; httpListen: string[] };
  /** The gateway's own cookie (gatewayCookieName of the gateway's scheme): read for the app, removed for previews. */
  cookieName: string;
  /** The access log of the site's servers, written in the format that leaves out secrets (PREVIEW_LOG_FORMAT). */
  accessLog: string;
  /**
   * The previews' `ip:port` addresses to which nginx keeps connections open (a named upstream with keepalive each):
   * this host's preview_address over the ports range. A preview at any other address is still reached, with a
   * connection per request.
   */
  keptUpstreams?: string[];
}

/** The upstream block that keeps connections to a preview's `ip:port`: a name, so that proxy_pass looks it up. */
export function keptUpstreamName(address: string): string {
  return `preview_${address.replace(/[^0-9A-Za-z]/g, "_")}`;
}

/**
 * How many idle connections each nginx worker keeps to one preview, and for how long (under Node's 5 s, so that
 * nginx, not the preview, closes an idle one). As many as the requests a busy preview has in flight: past it, each
 * answer closes a connection and the next request opens one again. Each worker sets aside room for them in every
 * kept upstream: with 2,000 ports, 32 add about 27 MB to each nginx process, mostly shared between them.
 */
const KEPT_CONNECTIONS = 32;
const KEPT_IDLE_SECONDS = 4;

/** Comments that mark what an operator edits in the production file. */
const MARK = {
  listen: " # listen",
  app: " # the app",
  cache: " # cache folder",
  tls: " # TLS",
  body: " # uploads",
  log: " # access log",
};

export function renderGatewayConfig(options: GatewayNginxOptions): string {
  const { domain } = options;
  const listen = (parameters: string[], extra = "", mark = MARK.listen) =>
    parameters.map((parameter) => `    listen ${parameter}${extra};${mark}`).join("\n");
  const domainPattern = domain.replaceAll(".", "\\.");
  // Written a buffer at a time (at most a second late): a write per request costs a busy preview's throughput.
  const accessLog = `    access_log ${options.accessLog} preview_gateway buffer=64k flush=1s;${MARK.log}`;
  const tlsLines = options.tls
    ? `
    ssl_certificate ${options.tls.certificate};${MARK.tls}
    ssl_certificate_key ${options.tls.key};${MARK.tls}
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:preview_tls:10m;
    ssl_session_timeout 1d;
    add_header Strict-Transport-Security "max-age=31536000" always;
`
    : "";
  const redirect = options.tls
    ? `
# Plain HTTP: every name under the domain to its HTTPS address; anything else refused.
server {
${listen(options.tls.httpListen, "", MARK.listen)}
    server_name ~^([a-z0-9-]+\\.)*${domainPattern}$;
${accessLog}
    return 301 https://$host$request_uri;
}

server {
${listen(options.tls.httpListen, " default_server", MARK.listen)}
    server_name _;
${accessLog}
    default_type text/plain;
    return 421 "This gateway serves the previews under ${domain} only.\\n";
}
`
    : "";
  const defaultServer = options.tls
    ? `# Any other name: the TLS handshake is refused (no certificate is shown for it).
server {
${listen(options.listen, " default_server")}
    server_name _;
${accessLog}
    ssl_reject_handshake on;
}`
    : `# Any other Host (another name, an IP literal): refused here; nothing is proxied.
server {
${listen(options.listen, " default_server")}
    server_name _;
${accessLog}
    default_type text/plain;
    return 421 "This gateway serves the previews under ${domain} only.\\n";
}`;
  const kept = options.keptUpstreams ?? [];
  const keptBlocks = kept.length
    ? `
# Connections to the previews of this host's addresses, kept open between requests: without them every request opens
# one, and between machines (no reuse of a port in TIME_WAIT) a busy preview runs out of ports. The resolver names an
# ip:port; the map turns a kept one into its upstream's name, any other stays an address reached as before.
${kept.map((address) => `upstream ${keptUpstreamName(address)} { server ${address} max_fails=0; keepalive ${KEPT_CONNECTIONS}; keepalive_timeout ${KEPT_IDLE_SECONDS}s; }`).join("\n")}
map $preview_upstream $preview_pass {
${kept.map((address) => `    ${address} ${keptUpstreamName(address)};`).join("\n")}
    default $preview_upstream;
}
`
    : `
map $preview_upstream $preview_pass {
    default $preview_upstream;
}
`;
  return `# The previews' gateway (lib/gateway/nginx-config.ts): one front door, every preview a name under ${domain}.
# Previews listen only where their host's preview_address says, reached from here; nginx proxies to the ip:port the
# app's GET /gateway/resolve names for each Host, kept 1 s, so a new or moved preview is reached within 2 s and no
# build ever reloads nginx.

${kept.length ? `# Room for the map of kept upstreams below (set before any map).\nmap_hash_max_size ${Math.max(2048, 2 ** Math.ceil(Math.log2(kept.length * 2)))};\n` : ""}proxy_cache_path ${options.cacheFolder} levels=1:2 keys_zone=preview_names:10m max_size=64m inactive=10m use_temp_path=off;${MARK.cache}

upstream preview_gateway_app {
${options.appServers.map((server) => `    server ${server};${MARK.app}`).join("\n")}
    keepalive 16;
}

# A WebSocket handshake keeps its Upgrade; any other request leaves its connection to the preview open for the next.
map $http_upgrade $preview_connection {
    default upgrade;
    "" "";
}
${keptBlocks}
# What the access log says of a request: the path without its query (tickets, a preview's reset-password and portal
# tokens), and a share link's secret, which sits in its path, left out.
map $request_uri $preview_logged_path {
    "~^/__gateway/share/" "/__gateway/share/-";
    "~^(?<preview_logged_path_only>[^?]*)" $preview_logged_path_only;
}
log_format preview_gateway '$remote_addr - $remote_user [$time_local] "$request_method $preview_logged_path $server_protocol" '
                           '$status $body_bytes_sent "$http_referer" "$http_user_agent"';

# The gateway's own cookie (private previews): its value, for the app; the Cookie header without it, for the preview.
map $http_cookie $preview_access_cookie {
    "~(?:^|;)[ ]*${options.cookieName}=(?<preview_access_value>[^;]*)" $preview_access_value;
    default "";
}
map $http_cookie $preview_cookies {
    "~^(?<preview_cookies_before>|.*?;[ ]*)${options.cookieName}=[^;]*(?:;[ ]*)?(?<preview_cookies_after>.*)$" "$preview_cookies_before$preview_cookies_after";
    default $http_cookie;
}
# Sent twice (a preview may set a cookie of that name for itself): refused rather than passed on.
map $preview_cookies $preview_access_cookie_twice {
    "~(?:^|;)[ ]*${options.cookieName}=" 1;
    default "";
}
${redirect}
${defaultServer}

server {
${listen(options.listen, "")}
    # The domain and the names under it, in the letters a host name may hold: any other byte meets the default server.
    server_name ~^([a-z0-9-]+\\.)*${domainPattern}$;
${accessLog}
${tlsLines}
    # Sent twice (a preview set a cookie of that name for itself, on any path): refused before any location, so that
    # no path (/websocket, /longpolling, ...) passes the second one on.
    if ($preview_access_cookie_twice) {
        return 400 "The gateway's cookie was sent twice.\\n";
    }
    # A visitor's connection stays open for its requests however many (nginx's 1,000 by default): closing it after
    # the last one resets a request the client already sent on it, which a client that does not retry sees fail.
    keepalive_requests 100000;

    # Uploads to a preview (an Odoo attachment, a database restore).
    client_max_body_size ${options.maxBodySize};${MARK.body}

    # Where each name leads for this visitor: the app's answer, kept 1 s per Host header as received and gateway
    # cookie; never kept for a request with X-Preview-Bypass.
    location = /__gateway/resolve {
        internal;
        proxy_pass http://preview_gateway_app/gateway/resolve;
        proxy_method GET;
        proxy_pass_request_body off;
        proxy_pass_request_headers off;
        proxy_set_header X-Gateway-Host $http_host;
        proxy_set_header X-Gateway-Cookie $preview_access_cookie;
        proxy_set_header X-Gateway-Bypass $http_x_preview_bypass;
        # Who asks: wrong bypass secrets are counted per client address.
        proxy_set_header X-Gateway-Client $remote_addr;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_connect_timeout 5s;
        proxy_read_timeout 10s;
        proxy_cache preview_names;
        proxy_cache_key "$http_host $preview_access_cookie";
        proxy_cache_bypass $http_x_preview_bypass;
        proxy_no_cache $http_x_preview_bypass;
        proxy_cache_methods GET HEAD POST;
        proxy_cache_valid 200 403 1s;
        proxy_ignore_headers Cache-Control Expires X-Accel-Expires Set-Cookie Vary;
        proxy_cache_lock on;
        proxy_cache_lock_timeout 5s;
        proxy_cache_use_stale updating;
        # Each kept answer is a file: its descriptor stays open between hits (nginx reopens it when the answer is
        # renewed, by the inode it records), which saves the hot path an open and a close per request.
        open_file_cache max=10000 inactive=20s;
    }

    # The ticket of a signed-in user and the share links: for the app, which sets the gateway's cookie; never proxied
    # to the preview.
    location ^~ /__gateway/ {
        rewrite ^/__gateway/(admit|share/[A-Za-z0-9_-]+)$ /gateway/$1 break;
        return 404;
        proxy_pass http://preview_gateway_app;
        proxy_method GET;
        proxy_pass_request_body off;
        proxy_set_header Content-Length "";
        proxy_set_header Host $http_host;
        proxy_set_header X-Forwarded-For $remote_addr;
        proxy_set_header Cookie "";
        proxy_set_header Authorization "";
        proxy_set_header X-Gateway-Cookie "";
        proxy_set_header X-Gateway-Bypass "";
        proxy_set_header X-Gateway-Uri "";
        proxy_set_header X-Gateway-Client "";
        proxy_http_version 1.1;
        proxy_set_header Connection "";
    }

    location / {
        auth_request /__gateway/resolve;
        auth_request_set $preview_upstream $upstream_http_x_gateway_upstream;
        # 403: nothing to proxy, the app's page says why. The preview's own error answers pass through as they are.
        error_page 403 = @gateway_page;
        error_page 502 504 = @preview_down;
        error_page 500 = @gateway_unavailable;

        proxy_pass http://$preview_pass;
        proxy_http_version 1.1;
        proxy_set_header Host $http_host;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $preview_connection;
        # Set here, whatever the client sent: what Odoo's proxy_mode reads.
        proxy_set_header X-Forwarded-Host $http_host;
        proxy_set_header X-Forwarded-Proto ${options.forwardedProto};
        proxy_set_header X-Forwarded-For $remote_addr;
        proxy_set_header X-Forwarded-Port "";
        proxy_set_header X-Real-IP $remote_addr;
        proxy_set_header Forwarded "";
        # What only the gateway reads: its cookie and the bypass secret never reach a preview.
        proxy_set_header Cookie $preview_cookies;
        proxy_set_header X-Preview-Bypass "";
        proxy_connect_timeout 5s;
        # An Odoo report or an import may work for minutes before it answers.
        proxy_read_timeout 10m;
        proxy_send_timeout 10m;

        # The locations inside inherit every proxy_set_header above (the gateway's cookie and X-Preview-Bypass
        # removed): none may set one of its own, which would drop all the inherited ones.
        # Odoo 16's bus: a WebSocket that may stay quiet for long.
        location /websocket {
            proxy_pass http://$preview_pass;
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
        }

        # Odoo 15 and older: long polling, an answer that comes when there is news; passed on as it comes.
        location /longpolling {
            proxy_pass http://$preview_pass;
            proxy_buffering off;
            proxy_read_timeout 1h;
        }
    }

    # The pages of the app (404, 410, 503), under the preview's name, for whatever method was asked.
    location @gateway_page {
        auth_request off;
        rewrite ^ /gateway/page? break;
        proxy_pass http://preview_gateway_app;
        proxy_method GET;
        proxy_pass_request_body off;
        proxy_set_header Content-Length "";
        proxy_set_header Host $http_host;
        # The visitor, for the wakes a client address may start (the app believes it from TRUSTED_PROXIES only).
        proxy_set_header X-Forwarded-For $remote_addr;
        proxy_set_header Cookie "";
        proxy_set_header Authorization "";
        # A private preview's page depends on the visitor; a browser it does not admit comes back to this path.
        proxy_set_header X-Gateway-Cookie $preview_access_cookie;
        proxy_set_header X-Gateway-Bypass $http_x_preview_bypass;
        proxy_set_header X-Gateway-Uri $request_uri;
        proxy_set_header X-Gateway-Client $remote_addr;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
    }

    location @preview_down {
        auth_request off;
        rewrite ^ /gateway/page?unreachable=1 break;
        proxy_pass http://preview_gateway_app;
        proxy_method GET;
        proxy_pass_request_body off;
        proxy_set_header Content-Length "";
        proxy_set_header Host $http_host;
        # The visitor, for the wakes a client address may start (the app believes it from TRUSTED_PROXIES only).
        proxy_set_header X-Forwarded-For $remote_addr;
        proxy_set_header Cookie "";
        proxy_set_header Authorization "";
        # A private preview's page depends on the visitor; a browser it does not admit comes back to this path.
        proxy_set_header X-Gateway-Cookie $preview_access_cookie;
        proxy_set_header X-Gateway-Bypass $http_x_preview_bypass;
        proxy_set_header X-Gateway-Uri $request_uri;
        proxy_set_header X-Gateway-Client $remote_addr;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
    }

    # The app itself does not answer: nothing can be known of the name.
    location @gateway_unavailable {
        auth_request off;
        default_type text/plain;
        add_header Retry-After 5 always;
        return 503 "The previews' gateway cannot reach the build service; retry in a moment.\\n";
    }
}
`.replace(/\n{3,}/g, "\n\n");
}

/** nginx's main configuration around the site, for a gateway in a folder of its own (`npm run gateway`). */
export function renderMainConfig(options: {
  folder: string;
  site: string;
  user?: string;
  workers?: number | "auto";
  /** Where the workers spool bodies (NGINX_TEMP_FOLDERS inside): the folder's temp/ unless said. */
  tempFolder?: string;
}) {
  const temp = (name: string) => `${options.tempFolder ?? `${options.folder}/temp`}/${name}`;
  return `${options.user ? `user ${options.user};\n` : ""}daemon off;
pid ${options.folder}/nginx.pid;
worker_processes ${options.workers ?? "auto"};
error_log ${options.folder}/error.log warn;
events { worker_connections 4096; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  client_body_temp_path ${temp("body")};
  proxy_temp_path ${temp("proxy")};
  fastcgi_temp_path ${temp("fastcgi")};
  uwsgi_temp_path ${temp("uwsgi")};
  scgi_temp_path ${temp("scgi")};
  access_log ${options.folder}/access.log combined buffer=64k flush=1s;
  server_tokens off;
  include ${options.site};
}
`;
}

/** The temp folders renderMainConfig names, to make before nginx starts. */
export const NGINX_TEMP_FOLDERS = ["body", "proxy", "fastcgi", "uwsgi", "scgi"];
