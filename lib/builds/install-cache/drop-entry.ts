import { conflict, notFound } from "../../http/problem";
import { getBuildsConfig } from "../config";
import { readEntry, removeEntry } from "./entries";
import { isKeyHeld } from "./locks";

/** DELETE /builds/cache/{key}: removes one entry of this builder host; 409 while a build restores or saves it. */
export async function dropInstallCacheEntry(key: string): Promise<void> {
  const config = getBuildsConfig();
  if (!readEntry(config, key)) throw notFound(`This builder host has no install cache entry ${key}.`);
  if (isKeyHeld(key) || !(await removeEntry(config, key))) {
    throw conflict(`A build is restoring or saving the entry ${key}; try again when it is done.`);
  }
}
