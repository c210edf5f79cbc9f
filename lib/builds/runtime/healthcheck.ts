import fs from "node:fs";
import type { BuildsConfig } from "../config";
import { logStamp } from "../logs/log-time";
import type { Liveness, StageResult } from "./driver";
import { sleep } from "./processes";

/**
 * The healthcheck stage of every driver: polls the preview on its leased port, at the host's preview_address, until it answers below 500,
 * within healthcheck.timeout_seconds, and gives up early when the driver says the runtime is gone.
 */
export async function waitUntilHealthy(
  config: BuildsConfig,
  port: number,
  logPath: string,
  signal: AbortSignal,
  liveness: () => Promise<Liveness>,
): Promise<StageResult> {
  const address = config.preview_address.includes(":") ? `[${config.preview_address}]` : config.preview_address;
  const url = `http://${address}:${port}${config.runtime.healthcheck.path}`;
  const deadline = Date.now() + config.runtime.healthcheck.timeout_seconds * 1000;
  let lastProblem = "";
  const log = (line: string) => fs.appendFileSync(logPath, `${logStamp()} ${line}\n`);
  log(`GET ${url} until it answers below 500, for up to ${config.runtime.healthcheck.timeout_seconds} s`);
  while (!signal.aborted) {
    if ((await liveness()) === "dead") {
      log("the runtime exited");
      return {
        status: "failed",
        exitCode: null,
        message: "The runtime exited before answering its healthcheck; see the start log.",
      };
    }
    let problem: string;
    try {
      const response = await fetch(url, {
        signal: AbortSignal.any([signal, AbortSignal.timeout(2_000)]),
        redirect: "manual",
      });
      await response.body?.cancel();
      if (response.status < 500) {
        log(`answered ${response.status}`);
        return { status: "succeeded", exitCode: null };
      }
      problem = `answered ${response.status}`;
    } catch (error) {
      problem = `no answer (${((error as Error).cause as Error | undefined)?.message ?? (error as Error).message})`;
    }
    if (problem !== lastProblem) log(problem);
    lastProblem = problem;
    if (Date.now() >= deadline) {
      return {
        status: "failed",
        exitCode: null,
        message: `The preview did not answer below 500 within ${config.runtime.healthcheck.timeout_seconds} s (last: ${problem}).`,
      };
    }
    await sleep(250, signal);
  }
  return { status: "canceled" };
}
