import type { BuildsConfig } from "../../config";
import type { RuntimeDriver } from "../driver";
import { composeDriver } from "./compose";
import { processDriver } from "./process";

/** The runtime drivers by the name `runtime.driver` gives; a build keeps the driver it was created with. */
const DRIVERS: Record<BuildsConfig["runtime"]["driver"], RuntimeDriver> = {
  process: processDriver,
  compose: composeDriver,
};

export function getDriver(name: string): RuntimeDriver {
  const driver = DRIVERS[name as keyof typeof DRIVERS];
  if (!driver) throw new Error(`There is no runtime driver "${name}".`);
  return driver;
}

/** The driver new builds get. */
export function configuredDriver(config: BuildsConfig): RuntimeDriver {
  return DRIVERS[config.runtime.driver];
}
