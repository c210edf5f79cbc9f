import crypto from "node:crypto";
import type { AppServer } from "./app-server";

/** Registers a fresh user through the API and returns its credentials and a bearer token. */
export async function registerAndGetToken(app: AppServer, email = `user-${crypto.randomUUID()}@example.com`) {
  const password = "correct horse battery";
  const registered = await app.fetch("/users/", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (registered.status !== 201) throw new Error(`register answered ${registered.status}`);
  const token = await requestToken(app, email, password);
  if (token.status !== 200) throw new Error(`token answered ${token.status}`);
  const { access_token } = (await token.json()) as { access_token: string };
  return { email, password, token: access_token, authorization: { Authorization: `Bearer ${access_token}` } };
}

export function requestToken(app: AppServer, username: string, password: string) {
  return app.fetch("/users/token", {
    method: "POST",
    body: new URLSearchParams({ username, password }),
  });
}
