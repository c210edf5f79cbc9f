import { postToInstance } from "../cluster/forwarding";
import { heartbeatJob } from "../cluster/heartbeat";
import { thisInstanceName, viewInstances } from "../cluster/instances";
import type { Topology } from "./topology";

/** One instance owns the database: nobody to tell, to ask or to wait for (lib/topology/topology.ts). */
export const singleInstance: Topology = {
  othersCanTakeWork: false,
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
  // The Instance table is kept here too: GET /metrics lists the instance, and a build of a past name of this
  // server (a restart on another port) is asked for at the address that name registered, as a peer's would be.
  postToInstance,
  instances: viewInstances,
  // Another name in the Instance table is this server's own past, whose builds its recovery fails: nobody to
  // compare settings with, nobody to judge lost.
  membershipJob: (membership) => heartbeatJob(membership, { judgeOthers: false }),
};
