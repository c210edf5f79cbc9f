import { gatewayCookieName, renderGatewayConfig } from "./nginx-config";

/**
 * deploy/nginx/previews.conf: the gateway for production, with TLS on a wildcard certificate and HTTP sent to
 * HTTPS. The marked lines are what an operator edits; tests/unit/gateway-nginx-config.test.ts keeps the file equal
 * to this text.
 */
export const PRODUCTION_HEADER = `# The previews' gateway for production: nginx (Debian's 1.22) in front of every preview of every builder host.
# Written by \`npm run gateway -- --print-production-config\` (lib/gateway/production.ts); docs/gateway.md says
# how it works.
#
#   sudo cp deploy/nginx/previews.conf /etc/nginx/sites-available/previews
#   sudo ln -s ../sites-available/previews /etc/nginx/sites-enabled/
#   sudo mkdir -p /var/cache/nginx/previews && sudo nginx -t && sudo systemctl reload nginx
#
# Edit the marked lines:
# - the domain (every \`preview.example.com\`): gateway.domain of the builds configuration, with a wildcard DNS
#   record (*.preview.example.com) pointing here;
# - the TLS certificate: a wildcard one for *.preview.example.com, which only a DNS-01 challenge can obtain, e.g.
#   \`certbot certonly --dns-<your DNS provider> -d '*.preview.example.com'\`; certbot writes it to
#   /etc/letsencrypt/live/preview.example.com/ (fullchain.pem, privkey.pem), and renews it by itself;
# - the app: one \`server\` line per instance of the app (any instance answers for every host's previews);
# - uploads: the largest body a preview receives;
# - the access log (rotated with the others by Debian's logrotate);
# - connections kept to the previews: \`npm run gateway\` keeps them to this host's preview_address over the ports
#   range (an \`upstream\` each and the map $preview_pass, lib/gateway/nginx-config.ts); this file reaches every
#   preview with a connection per request. Print it with them for your builder hosts' addresses and ports:
#   \`npm run gateway -- --print-production-config --preview-address 10.0.0.11 --preview-address 10.0.0.12
#   --ports 18000-19999\`.
# The builds configuration then says gateway: { domain: preview.example.com, scheme: https } (port 443 by
# default), and each builder host's preview_address is an address of that host which this machine reaches.

`;

export function productionGatewayConfig(domain = "preview.example.com", keptUpstreams: string[] = []): string {
  return (
    PRODUCTION_HEADER.replaceAll("preview.example.com", domain) +
    renderGatewayConfig({
      domain,
      listen: ["443 ssl http2", "[::]:443 ssl http2"],
      appServers: ["127.0.0.1:3000"],
      cacheFolder: "/var/cache/nginx/previews",
      maxBodySize: "256m",
      forwardedProto: "$scheme",
      cookieName: gatewayCookieName("https"),
      keptUpstreams,
      accessLog: "/var/log/nginx/previews.access.log",
      tls: {
        certificate: `/etc/letsencrypt/live/${domain}/fullchain.pem`,
        key: `/etc/letsencrypt/live/${domain}/privkey.pem`,
        httpListen: ["80", "[::]:80"],
      },
    })
  );
}
