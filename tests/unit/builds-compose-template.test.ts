import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  type ComposeVariables,
  renderComposeFile,
  substituteVariables,
  TemplateError,
  unknownVariables,
} from "@/lib/builds/runtime/drivers/compose-template";

const variables: ComposeVariables = {
  BUILD_ID: "0123456789abcdef",
  PROJECT: "runbot-abcd1234-0123456789abcdef",
  PORT: "18001",
  PREVIEW_ADDRESS: "127.0.0.1",
  MODULES: "sale,stock",
  DATABASE: "build_0123456789abcdef",
  WORKSPACE: "/srv/builds/0123456789abcdef",
  SOURCES: "/srv/builds/0123456789abcdef/sources",
  ADDONS_PATH: "/srv/builds/0123456789abcdef/sources/demo/addons",
  CONTAINER_ADDONS_PATH: "/mnt/sources/demo/addons",
  BUILD_SECRET: "5f0c2a9e1d7b4c3a8e6f0b1d2c3a4e5f",
};
const labels = { "org.bcv-runbot.build": "0123456789abcdef", "org.bcv-runbot.instance": "abcd1234" };

describe("rendering a build's Compose file from the template", () => {
  it("fills in the build's values, leaves other references and $$ to Compose, and labels what the build owns", () => {
    const template = `
services:
  web:
    image: odoo:16
    command: ["odoo", "-d", "\${DATABASE}", "--addons-path=\${CONTAINER_ADDONS_PATH}"]
    ports: ["127.0.0.1:\${PORT}:8069"]
    environment: { OTHER: "\${NOT_OURS}", DOLLAR: "$$HOME" }
    labels: ["keep=me"]
  db:
    image: postgres:15
    labels: { keep: me }
volumes:
  data:
  shared: { external: true }
networks:
  back: {}
`;
    const rendered = parse(renderComposeFile(template, variables, labels));
    expect(rendered.services.web.command).toEqual([
      "odoo",
      "-d",
      "build_0123456789abcdef",
      "--addons-path=/mnt/sources/demo/addons",
    ]);
    expect(rendered.services.web.ports).toEqual(["127.0.0.1:18001:8069"]);
    expect(rendered.services.web.environment).toEqual({ OTHER: "${NOT_OURS}", DOLLAR: "$$HOME" });
    expect(rendered.services.web.labels).toEqual([
      "keep=me",
      "org.bcv-runbot.build=0123456789abcdef",
      "org.bcv-runbot.instance=abcd1234",
    ]);
    expect(rendered.services.db.labels).toEqual({ keep: "me", ...labels });
    expect(rendered.volumes.data.labels).toEqual(labels);
    expect(rendered.volumes.shared).toEqual({ external: true });
    expect(rendered.networks.back.labels).toEqual(labels);
  });

  it("refuses a value that could change the file's structure", () => {
    expect(() => substituteVariables("x: ${WORKSPACE}", { ...variables, WORKSPACE: "/srv/a: b\n  evil: 1" })).toThrow(
      TemplateError,
    );
  });

  it("says when the template is not YAML", () => {
    expect(() => renderComposeFile("services: [\n", variables, labels)).toThrow(/not valid YAML/);
  });

  it("names unknown references in configured commands", () => {
    expect(unknownVariables("odoo -i ${MODULES} -d ${DATABASE}")).toEqual([]);
    expect(unknownVariables("odoo ${HOME}")).toEqual([expect.stringContaining("${HOME} is not one of BUILD_ID")]);
  });
});
