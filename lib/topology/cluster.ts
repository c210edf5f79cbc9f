import { forwardToBuildHost, postToInstance } from "../cluster/forwarding";
import { heartbeatJob } from "../cluster/heartbeat";
import { thisInstanceName, viewInstances } from "../cluster/instances";
import { announceNextRun, findAnnouncedNextRun, runOnceAcrossCluster } from "../cluster/leases";
import { withClusterLock } from "../cluster/locks";
import { listenToInstances, notifyInstances } from "../cluster/notifications";
import { databaseNow } from "../db/statements/database-now";
import type { Topology } from "./topology";

/** Several instances share one PostgreSQL database; lib/cluster/ does the coordinating (lib/topology/topology.ts). */
export const cluster: Topology = {
  othersCanTakeWork: true,
  instanceName: thisInstanceName,
  buildsOfThisHost: thisInstanceName,
  now: databaseNow,
  withLock: withClusterLock,
  runOnce: (job) => runOnceAcrossCluster(job, thisInstanceName),
  announceNextRun: (job, at) => announceNextRun(job, thisInstanceName(), at),
  announcedNextRun: findAnnouncedNextRun,
  notify: notifyInstances,
  listen: listenToInstances,
  forwardToBuildHost,
  postToInstance,
  instances: viewInstances,
  membershipJob: (membership) => heartbeatJob(membership, { judgeOthers: true }),
};
