import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BuildsConfig } from "@/lib/builds/config";
import { processesOfUsers } from "@/lib/builds/runtime/processes";
import { buildUser, leaseBuildUser, releaseBuildUser } from "@/lib/builds/runtime/run-as";
import { removeFolders, removeRuntimeFiles, workspacePaths } from "@/lib/builds/runtime/workspace";

// Removing a build's files never follows a path the build (or its containers) can change.
const asRoot = process.getuid?.() === 0;
const UIDS = { start: 1_900_100_000, end: 1_900_100_002 };
// Named as a database and a secret would be: a hostile build knows those names.
const VICTIM_FILES = ["app.db", "nextauth-secret", ...Array.from({ length: 28 }, (_, i) => `file${i}`)].sort();

let root: string;
let victim: string;
const children: ChildProcess[] = [];
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "workspace-removal-"));
  fs.chmodSync(root, 0o755);
  victim = path.join(root, "victim");
  fs.mkdirSync(victim, { mode: 0o700 });
  for (const name of VICTIM_FILES) fs.writeFileSync(path.join(victim, name), "keep\n");
});
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  fs.rmSync(root, { recursive: true, force: true });
});

const victimFiles = () => fs.readdirSync(victim).sort();

function config(): BuildsConfig {
  return {
    builds_root: path.join(root, "builds"),
    runtime: { driver: "process", run_as_uids: UIDS },
  } as unknown as BuildsConfig;
}

/** A hostile build's swapper (tests/fixtures/hostile-builds): its folders and symlinks to the victim, swapped. */
function startSwapper(base: string, user?: { uid: number; gid: number }): ChildProcess {
  const fixtures = path.resolve(import.meta.dirname, "..", "fixtures", "hostile-builds");
  const [file, script] = fs.existsSync("/usr/bin/python3")
    ? ["/usr/bin/python3", "swapper.py"]
    : [process.execPath, "swapper.mjs"];
  // Copied where another uid can read it.
  fs.copyFileSync(path.join(fixtures, script), path.join(root, script));
  const child = spawn(file, [path.join(root, script), base, victim, VICTIM_FILES.join(",")], {
    stdio: "ignore",
    ...(user ?? {}),
  });
  children.push(child);
  return child;
}

describe("removing a build's folders (lib/builds/runtime/workspace.ts)", () => {
  it("as the server, never follows a symlink swapped in for a folder while the walk goes on", async () => {
    const tree = path.join(root, "builds", "0123456789abcdef", "sources");
    fs.mkdirSync(path.join(tree, "swap"), { recursive: true });
    startSwapper(path.join(tree, "swap"));
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Where fs.rmSync lost most of the victim's files in two runs of three, GNU rm loses none. The swapper
    // keeps making files, so a removal may find a folder not empty: it must fail, never follow.
    for (let attempt = 0; attempt < 10; attempt++) await removeFolders([tree]).catch(() => {});
    expect(victimFiles()).toEqual(VICTIM_FILES);
    for (const child of children) child.kill("SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 100));
    await removeFolders([tree]);
    expect(fs.existsSync(tree)).toBe(false);
    expect(victimFiles()).toEqual(VICTIM_FILES);
  });

  it("removes what containers leave as root: unreadable folders, symlinks to outside files and folders", async () => {
    const tree = path.join(root, "builds", "0123456789abcdef", "runtime");
    fs.mkdirSync(path.join(tree, "locked", "inner"), { recursive: true });
    fs.writeFileSync(path.join(tree, "locked", "inner", "data"), "x");
    fs.chmodSync(path.join(tree, "locked"), 0o000);
    fs.symlinkSync(victim, path.join(tree, "to-folder"));
    fs.symlinkSync(path.join(victim, "app.db"), path.join(tree, "to-file"));
    await removeFolders([tree]);
    expect(fs.existsSync(tree)).toBe(false);
    expect(victimFiles()).toEqual(VICTIM_FILES);
  });
});

describe.skipIf(!asRoot)("a build's own uid (lib/builds/runtime/run-as.ts), with the server root", () => {
  it("leases each build another uid, skips a uid with a process left, keeps the lease in a file until released", async () => {
    const first = leaseBuildUser(config(), "aaaaaaaaaaaaaaaa", new Set())!;
    const second = leaseBuildUser(config(), "bbbbbbbbbbbbbbbb", new Set([first.uid + 1]))!;
    expect(second.uid).not.toBe(first.uid);
    expect(second.uid).not.toBe(first.uid + 1);
    expect(leaseBuildUser(config(), "aaaaaaaaaaaaaaaa", new Set())).toEqual(first);
    expect(buildUser(config(), "aaaaaaaaaaaaaaaa")).toEqual({ uid: first.uid, gid: first.uid });
    // Three uids in the range, two leased, the third busy: none is free.
    const busy = new Set([UIDS.start, UIDS.start + 1, UIDS.start + 2]);
    expect(leaseBuildUser(config(), "cccccccccccccccc", busy)).toBeNull();
    releaseBuildUser(config(), "aaaaaaaaaaaaaaaa");
    expect(buildUser(config(), "aaaaaaaaaaaaaaaa")).toBeNull();
    const othersBusy = new Set([...busy].filter((uid) => uid !== first.uid));
    expect(leaseBuildUser(config(), "cccccccccccccccc", othersBusy)!.uid).toBe(first.uid);
    expect((fs.statSync(path.join(root, "builds", ".build-users")).mode & 0o777).toString(8)).toBe("700");
  });

  it("removeRuntimeFiles ends the uid's processes, empties its folders as that uid, removes its /tmp leftovers, then frees the uid", async () => {
    const buildId = "dddddddddddddddd";
    const user = leaseBuildUser(config(), buildId, new Set())!;
    const paths = workspacePaths(config(), buildId);
    for (const folder of [paths.sources, paths.runtime, paths.logs]) fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(paths.logs, "install.log"), "kept\n");
    for (const folder of [paths.sources, paths.runtime]) {
      fs.chmodSync(folder, 0o700);
      fs.chownSync(folder, user.uid, user.gid);
    }
    const leftover = path.join(os.tmpdir(), `left-by-build-${process.pid}`);
    fs.mkdirSync(leftover);
    fs.chownSync(leftover, user.uid, user.gid);
    // A process of the build that keeps swapping a folder of its runtime with a symlink to the victim.
    fs.mkdirSync(path.join(paths.runtime, "swap"));
    fs.chownSync(path.join(paths.runtime, "swap"), user.uid, user.gid);
    startSwapper(path.join(paths.runtime, "swap"), user);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(processesOfUsers(user.uid, user.uid).get(user.uid)).toHaveLength(1);

    await removeRuntimeFiles(config(), buildId);
    expect(processesOfUsers(user.uid, user.uid).get(user.uid)).toBeUndefined();
    expect(fs.existsSync(paths.sources)).toBe(false);
    expect(fs.existsSync(paths.runtime)).toBe(false);
    expect(fs.readFileSync(path.join(paths.logs, "install.log"), "utf8")).toBe("kept\n");
    expect(fs.existsSync(leftover)).toBe(false);
    expect(buildUser(config(), buildId)).toBeNull();
    expect(victimFiles()).toEqual(VICTIM_FILES);
  });
});
