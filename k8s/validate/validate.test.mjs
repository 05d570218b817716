// The validator passes the manifests of this repository and fails, naming the file, on each kind
// of breakage it is meant to catch: run on a copy of k8s/ with one thing broken at a time.
//
//   node --test validate.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ManifestError, validateTree } from "./validate.mjs";

const K8S = join(dirname(fileURLToPath(import.meta.url)), "..");

test("the manifests of this repository are valid", async () => {
  const r = await validateTree(K8S);
  assert.ok(r.manifests >= 10, `${r.manifests} objects`);
  assert.equal(r.kustomizations, 2);
});

/** A copy of k8s/base and k8s/overlays with `edit` applied to it. */
function brokenCopy(edit) {
  const dir = mkdtempSync(join(tmpdir(), "sluice-k8s-"));
  cpSync(join(K8S, "base"), join(dir, "base"), { recursive: true });
  cpSync(join(K8S, "overlays"), join(dir, "overlays"), { recursive: true });
  edit(dir);
  return dir;
}

function replaceIn(dir, file, from, to) {
  const path = join(dir, file);
  const text = readFileSync(path, "utf8");
  assert.ok(text.includes(from), `${file} contains ${from}`);
  writeFileSync(path, text.replace(from, to));
}

const BREAKAGES = [
  ["a wrong type", "base/sluice.yaml", (d) => replaceIn(d, "base/sluice.yaml", "replicas: 3", 'replicas: "three"'), /replicas must be integer/],
  ["a missing required field", "base/sluice.yaml", (d) => replaceIn(d, "base/sluice.yaml", "- name: sluice\n          # Placeholder", "- # Placeholder"), /containers\/0 must have required property name/],
  ["a probe without a port", "base/sluice.yaml", (d) => replaceIn(d, "base/sluice.yaml", "path: /health/ready\n              port: http", "path: /health/ready"), /readinessProbe\/httpGet must have required property port/],
  ["an unknown kind", "base/sluice.yaml", (d) => replaceIn(d, "base/sluice.yaml", "kind: StatefulSet", "kind: StatefullSet"), /no Kubernetes schema for kind StatefullSet/],
  ["an unknown apiVersion", "overlays/api-discovery/rbac.yaml", (d) => replaceIn(d, "overlays/api-discovery/rbac.yaml", "rbac.authorization.k8s.io/v1\nkind: Role\n", "rbac.authorization.k8s.io/v9\nkind: Role\n"), /no Kubernetes schema for apiVersion rbac.authorization.k8s.io\/v9/],
  ["a YAML syntax error", "base/credentials.yaml", (d) => replaceIn(d, "base/credentials.yaml", "type: Opaque", "type: [Opaque"), /not valid YAML/],
  ["a missing name", "base/namespace.yaml", (d) => replaceIn(d, "base/namespace.yaml", "name: sluice", "labels: {}"), /metadata.name is missing/],
  ["a resource that does not exist", "base/kustomization.yaml", (d) => replaceIn(d, "base/kustomization.yaml", "- sluice.yaml", "- sluice.yaml\n  - gone.yaml"), /resource gone.yaml does not exist/],
  ["a manifest no kustomization names", "base/extra.yaml", (d) => writeFileSync(join(d, "base/extra.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n"), /not named by base\/kustomization.yaml/],
  ["a patch aimed at nothing", "overlays/api-discovery/serviceaccount-token.yaml", (d) => replaceIn(d, "overlays/api-discovery/serviceaccount-token.yaml", "name: sluice", "name: other"), /patches ServiceAccount\/other/],
  ["an unknown kustomization field", "overlays/api-discovery/kustomization.yaml", (d) => replaceIn(d, "overlays/api-discovery/kustomization.yaml", "patches:", "patchez:"), /unknown kustomization field "patchez"/],
];

for (const [what, file, edit, message] of BREAKAGES) {
  test(`fails on ${what}, naming ${file}`, async () => {
    const dir = brokenCopy(edit);
    try {
      await assert.rejects(validateTree(dir), (e) => {
        assert.ok(e instanceof ManifestError, `a ManifestError, not ${e}`);
        assert.equal(e.file, file);
        assert.match(e.message, message);
        return true;
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
