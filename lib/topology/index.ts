import { databaseServesSeveralInstances } from "../db";
import { cluster } from "./cluster";
import { singleInstance } from "./single";
import type { Topology } from "./topology";

// What the domains and routes use of lib/cluster, which nothing outside lib/topology imports.
export { type LostHost, readerOf, requireCaller } from "../cluster/forwarding";
export { hostPartOf, type Membership } from "../cluster/instances";
export { verifyPeerRequest } from "../cluster/peer-auth";
export type { Topology } from "./topology";

/**
 * The topology this process runs in, decided once from the database: one that several instances can share
 * (PostgreSQL) means a cluster, even of one; a SQLite file means a single instance.
 */
export function getTopology(): Topology {
  return databaseServesSeveralInstances() ? cluster : singleInstance;
}

/** The host's answer when another instance hosts the build; null when this instance serves the request. */
export const forwardToBuildHost: Topology["forwardToBuildHost"] = (...args) =>
  getTopology().forwardToBuildHost(...args);
