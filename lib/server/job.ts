/**
 * A piece of background work: a small module with a start and a stop, started and stopped in one place
 * (lib/server/jobs.ts). `once`: it runs on one instance of a cluster at a time (lib/topology).
 */
export interface Job {
  name: string;
  start: () => Promise<void> | void;
  stop: () => Promise<void> | void;
  once?: boolean;
}
