import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { baseBranchOf, bundleOf } from "@/lib/builds/auto/bundles";
import { loadBuildsConfig } from "@/lib/builds/config";
import { previewNamesOf } from "@/lib/builds/preview-names";

describe("the base of a branch in a repository that lacks it", () => {
  const branches = ["master", "16.0", "17.0", "saas-17.2", "16.0-fix", "saas-17"];

  it("is the longest branch the branch starts with, followed by a dash", () => {
    expect(baseBranchOf("16.0-fix-sale", branches)).toBe("16.0-fix");
    expect(baseBranchOf("16.0-other", branches)).toBe("16.0");
    expect(baseBranchOf("saas-17.2-stock-xyz", branches)).toBe("saas-17.2");
    expect(baseBranchOf("saas-17-x", branches)).toBe("saas-17");
  });

  it("is none without a dash after the prefix, for the branch itself, or when nothing matches", () => {
    expect(baseBranchOf("16.0.1-fix", branches)).toBeNull();
    expect(baseBranchOf("16.0fix", branches)).toBeNull();
    expect(baseBranchOf("16.0", branches)).toBeNull();
    expect(baseBranchOf("master", branches)).toBeNull();
    expect(baseBranchOf("feature/x-y", branches)).toBeNull();
    expect(baseBranchOf("", branches)).toBeNull();
  });
});

function configWith(yaml: string) {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "bundles-config-"));
  const file = path.join(folder, "builds.config.yaml");
  fs.writeFileSync(file, yaml);
  try {
    return loadBuildsConfig(file);
  } finally {
    fs.rmSync(folder, { recursive: true });
  }
}

const REPOSITORIES = `
repositories:
  - { alias: odoo, url: ./odoo }
  - { alias: enterprise, url: ./enterprise }
  - { alias: addons, url: ./addons }
`;

describe("bundles: in the builds configuration", () => {
  it("names each repository's bundle; keep_per_branch is 1 and log checks do not fail builds unless asked", () => {
    const config = configWith(`${REPOSITORIES}bundles:\n  - { name: sale, repositories: [odoo, enterprise] }\n`);
    expect(bundleOf(config, "enterprise")?.name).toBe("sale");
    expect(bundleOf(config, "addons")).toBeNull();
    expect(config.keep_per_branch).toBe(1);
    expect(config.log_checks.fail_on_errors).toBe(false);
    expect(config.log_checks.errors.length).toBe(2);
  });

  it("refuses unknown aliases, a repository in two bundles, a bundle named as a repository, bad patterns", () => {
    expect(() =>
      configWith(
        `${REPOSITORIES}bundles:\n  - { name: a, repositories: [odoo, nope] }\n  - { name: b, repositories: [odoo, addons] }\n  - { name: addons, repositories: [enterprise, addons] }\nlog_checks: { errors: ["(unclosed"] }\nkeep_per_branch: 0\n`,
      ),
    ).toThrow(
      /bundles\[0\]\.repositories\[1\]: is not the alias[\s\S]*bundles\[1\]\.repositories\[0\]: "odoo" is already in the bundle "a"[\s\S]*bundles\[2\]\.name: is the alias of a repository/,
    );
    expect(() => configWith(`${REPOSITORIES}log_checks: { errors: ["(unclosed"] }\n`)).toThrow(
      /log_checks\.errors\[0\]: is not a valid regular expression/,
    );
    expect(() => configWith(`${REPOSITORIES}keep_per_branch: 0\n`)).toThrow(/keep_per_branch: must be at least 1/);
    expect(() => configWith(`${REPOSITORIES}bundles:\n  - { name: solo, repositories: [odoo] }\n`)).toThrow(
      /bundles\[0\]\.repositories: must list at least two/,
    );
  });
});

describe("a bundle build's preview name", () => {
  const gateway = { domain: "preview.example.test", scheme: "https" as const, port: 443 };
  it("follows the bundle's branch, not its first repository", () => {
    const names = previewNamesOf(gateway, {
      id: "0123456789abcdef",
      repositories: [{ alias: "odoo", ref: "16.0" }],
      bundle: "sale",
      branch: "fix-sale",
    });
    expect(names.map((name) => name.name)).toEqual([
      "0123456789abcdef.preview.example.test",
      "fix-sale--sale.preview.example.test",
    ]);
  });

  it("is the hashed one when another live branch of the bundle makes the same readable name", () => {
    const build = { id: "0123456789abcdef", repositories: [{ alias: "odoo", ref: "16.0" }], bundle: "sale" };
    const named = (branch: string, liveBranches: string[]) =>
      previewNamesOf(gateway, { ...build, branch }, liveBranches)[1].name;
    expect(named("fix/sale", ["fix/sale", "16.0"])).toBe("fix-sale--sale.preview.example.test");
    const clashing = named("fix/sale", ["fix/sale", "fix_sale"]);
    expect(clashing).toMatch(/^fix-sale-[0-9][a-z0-9]{5}--sale\.preview\.example\.test$/);
    expect(named("fix_sale", ["fix/sale", "fix_sale"])).not.toBe(clashing);
  });
});
