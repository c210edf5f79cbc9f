import { heartbeatJob } from "../cluster/heartbeat";
import { thisInstanceName } from "../cluster/instances";
import type { Topology } from "./topology";

/** One instance owns the database: nobody to tell, to ask or to wait for (lib/topology/topology.ts). */
export const singleInstance: Topology = {
  kind: "single",
  instanceName: thisInstanceName,
  // The one server of a data folder may have been renamed: every build is its own.
  buildsOfThisHost: () => undefined,
  now: async () => new Date(),
  // The caller serialises its work within the process; no other process shares the database.
  withLock: (_name, work) => work(),
  runOnce: (job) => job,
  announceNextRun: async () => {},
  announcedNextRun: async () => null,
  notify: async () => {},
  listen: () => () => {},
  forwardToBuildHost: async () => null,
  // Another name in the Instance table is this server's own past (a restart on another port), whose builds its
  // recovery fails: nobody to compare settings with, nobody to judge lost.
  membershipJob: (membership) => heartbeatJob(membership, { judgeOthers: false }),
};
