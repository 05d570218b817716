// Validates every Kubernetes manifest under k8s/ offline, against the Kubernetes schemas that the
// npm package kubernetes-models carries, and checks every kustomization.yaml structurally.
//
//   node validate.mjs [DIR]        (DIR defaults to k8s/, the parent of this script's folder)
//
// Exits 1 at the first broken file, naming it, the document and what is wrong; 0 when all pass.
// Maven runs it in `mvn verify` (k8s/validate/pom.xml).
//
// What the schemas catch: wrong types (replicas: "3"), missing required fields (a container
// without a name, a probe without a port), malformed values they constrain (integers, enums),
// unknown apiVersion/kind pairs. What they do not: unknown field names. Kubernetes' OpenAPI
// schemas allow extra properties; the API server rejects them only with strict field validation.
// KubernetesManifestsTest (broker tests) checks that the fields Sluice relies on are where it
// expects them.

import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import { dirname, join, relative, resolve, basename } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseAllDocuments } from "yaml";

const KUSTOMIZATION_NAMES = ["kustomization.yaml", "kustomization.yml", "Kustomization"];
const KUSTOMIZE_API_VERSIONS = ["kustomize.config.k8s.io/v1beta1"];
// The kustomization fields this project may use; anything else is taken for a typo.
const KUSTOMIZATION_KEYS = new Set([
  "apiVersion", "kind", "metadata", "resources", "patches", "namespace", "namePrefix", "nameSuffix",
  "labels", "commonLabels", "commonAnnotations", "images", "replicas", "configMapGenerator",
  "secretGenerator", "generatorOptions", "components",
]);
const SKIPPED_DIRS = new Set(["node_modules", "target", ".git"]);

/** A broken file: where and what. */
export class ManifestError extends Error {
  constructor(file, message) {
    super(`${file}: ${message}`);
    this.file = file;
  }
}

function yamlFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (!SKIPPED_DIRS.has(name)) {
        out.push(...yamlFiles(path));
      }
    } else if (/\.ya?ml$/.test(name) || name === "Kustomization") {
      out.push(path);
    }
  }
  return out;
}

/** The documents of a YAML file (empty ones left out); a syntax error is a broken file. */
function documents(file, shown) {
  const docs = parseAllDocuments(readFileSync(file, "utf8"));
  const list = Array.isArray(docs) ? docs : [docs];
  const out = [];
  list.forEach((doc, i) => {
    if (doc.errors.length > 0) {
      throw new ManifestError(shown, `document ${i + 1}: not valid YAML: ${doc.errors[0].message}`);
    }
    const value = doc.toJS();
    if (value !== null && value !== undefined) {
      out.push({ index: i + 1, value });
    }
  });
  return out;
}

function describe(doc) {
  const v = doc.value;
  const name = v && v.metadata && v.metadata.name ? ` ${v.metadata.name}` : "";
  return `document ${doc.index} (${v && v.kind ? v.kind : "no kind"}${name})`;
}

/** The model class of kubernetes-models for apiVersion and kind, or an error naming them. */
async function modelFor(apiVersion, kind, shown, where) {
  if (typeof apiVersion !== "string" || typeof kind !== "string" || apiVersion === "" || kind === "") {
    throw new ManifestError(shown, `${where}: apiVersion and kind must be non-empty strings`);
  }
  let module;
  try {
    module = await import(`kubernetes-models/${apiVersion}`);
  } catch (e) {
    throw new ManifestError(shown, `${where}: no Kubernetes schema for apiVersion ${apiVersion}`);
  }
  const model = module[kind];
  if (typeof model !== "function" || model.kind !== kind) {
    throw new ManifestError(shown, `${where}: no Kubernetes schema for kind ${kind} in ${apiVersion}`);
  }
  return model;
}

async function validateManifest(doc, shown) {
  const v = doc.value;
  const where = describe(doc);
  if (typeof v !== "object" || Array.isArray(v)) {
    throw new ManifestError(shown, `${where}: not a Kubernetes object (a mapping with apiVersion and kind)`);
  }
  const Model = await modelFor(v.apiVersion, v.kind, shown, where);
  if (!v.metadata || typeof v.metadata.name !== "string" || v.metadata.name === "") {
    throw new ManifestError(shown, `${where}: metadata.name is missing`);
  }
  try {
    new Model(v).validate();
  } catch (e) {
    const details = Array.isArray(e.errors) && e.errors.length > 0
      ? e.errors.map((x) => `${x.instancePath || "/"} ${x.message}`).join("; ")
      : e.message;
    throw new ManifestError(shown, `${where} does not match the Kubernetes schema: ${details}`);
  }
}

/** kind/name of every object a kustomization's resources produce (for checking patch targets). */
function resourceIds(dir, root, seen = new Set()) {
  const k = kustomizationIn(dir);
  if (!k || seen.has(k)) {
    return [];
  }
  seen.add(k);
  const docs = documents(k, relative(root, k));
  const ids = [];
  for (const entry of (docs[0] && docs[0].value.resources) || []) {
    const path = resolve(dir, entry);
    if (existsSync(path) && statSync(path).isDirectory()) {
      ids.push(...resourceIds(path, root, seen));
    } else if (existsSync(path)) {
      for (const d of documents(path, relative(root, path))) {
        ids.push(`${d.value.kind}/${d.value.metadata && d.value.metadata.name}`);
      }
    }
  }
  return ids;
}

function kustomizationIn(dir) {
  for (const name of KUSTOMIZATION_NAMES) {
    if (existsSync(join(dir, name))) {
      return join(dir, name);
    }
  }
  return null;
}

/**
 * A kustomization: the right apiVersion and kind, known fields only, every resource and patch it
 * names present, every patch aimed at an object of its resources, and every other YAML file of its
 * folder named by it (a manifest left out of the kustomization is never applied).
 * Returns the files it names as patches (partial objects, not validated as whole manifests).
 */
function checkKustomization(file, root) {
  const shown = relative(root, file);
  const dir = dirname(file);
  const docs = documents(file, shown);
  if (docs.length !== 1) {
    throw new ManifestError(shown, `a kustomization is one YAML document, found ${docs.length}`);
  }
  const k = docs[0].value;
  if (!KUSTOMIZE_API_VERSIONS.includes(k.apiVersion) || k.kind !== "Kustomization") {
    throw new ManifestError(shown, `apiVersion/kind must be ${KUSTOMIZE_API_VERSIONS[0]}/Kustomization, found ${k.apiVersion}/${k.kind}`);
  }
  for (const key of Object.keys(k)) {
    if (!KUSTOMIZATION_KEYS.has(key)) {
      throw new ManifestError(shown, `unknown kustomization field "${key}"`);
    }
  }
  const named = new Set();
  if (k.resources !== undefined && !Array.isArray(k.resources)) {
    throw new ManifestError(shown, "resources must be a list");
  }
  for (const entry of k.resources || []) {
    const path = resolve(dir, String(entry));
    if (!existsSync(path)) {
      throw new ManifestError(shown, `resource ${entry} does not exist`);
    }
    if (statSync(path).isDirectory() && !kustomizationIn(path)) {
      throw new ManifestError(shown, `resource ${entry} is a folder without a kustomization.yaml`);
    }
    named.add(path);
  }
  const patches = [];
  if (k.patches !== undefined && !Array.isArray(k.patches)) {
    throw new ManifestError(shown, "patches must be a list");
  }
  const ids = (k.patches || []).length > 0 ? resourceIds(dir, root) : [];
  for (const p of k.patches || []) {
    if (typeof p !== "object" || (p.path === undefined) === (p.patch === undefined)) {
      throw new ManifestError(shown, "each patch has either a path or an inline patch");
    }
    if (p.path === undefined) {
      continue;
    }
    const path = resolve(dir, String(p.path));
    if (!existsSync(path)) {
      throw new ManifestError(shown, `patch ${p.path} does not exist`);
    }
    for (const d of documents(path, relative(root, path))) {
      const target = p.target ? `${p.target.kind}/${p.target.name}` : `${d.value.kind}/${d.value.metadata && d.value.metadata.name}`;
      if (!ids.includes(target)) {
        throw new ManifestError(relative(root, path), `patches ${target}, which the resources of ${shown} do not contain`);
      }
    }
    named.add(path);
    patches.push(path);
  }
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (/\.ya?ml$/.test(name) && !KUSTOMIZATION_NAMES.includes(name) && !named.has(path)) {
      throw new ManifestError(relative(root, path), `not named by ${shown} (add it to resources or patches)`);
    }
  }
  return patches;
}

/** Validates the tree under root; throws a ManifestError at the first broken file. */
export async function validateTree(root) {
  const files = yamlFiles(root);
  const patches = new Set();
  let kustomizations = 0;
  for (const file of files) {
    if (KUSTOMIZATION_NAMES.includes(basename(file))) {
      checkKustomization(file, root).forEach((p) => patches.add(p));
      kustomizations++;
    }
  }
  let manifests = 0;
  for (const file of files) {
    if (KUSTOMIZATION_NAMES.includes(basename(file))) {
      continue;
    }
    const shown = relative(root, file);
    for (const doc of documents(file, shown)) {
      if (patches.has(file)) {
        // A patch is a partial object: its apiVersion and kind must still exist.
        await modelFor(doc.value.apiVersion, doc.value.kind, shown, describe(doc));
      } else {
        await validateManifest(doc, shown);
      }
      manifests++;
    }
  }
  return { files: files.length, manifests, kustomizations };
}

const here = dirname(fileURLToPath(import.meta.url));
if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  const root = resolve(process.argv[2] || join(here, ".."));
  try {
    const r = await validateTree(root);
    if (r.manifests === 0) {
      throw new ManifestError(root, "no manifest found");
    }
    const version = JSON.parse(readFileSync(join(here, "node_modules", "kubernetes-models", "package.json"), "utf8")).version;
    console.log(`k8s manifests valid: ${r.manifests} objects in ${r.files} files under ${root}, ${r.kustomizations} kustomizations (kubernetes-models ${version})`);
  } catch (e) {
    if (e instanceof ManifestError) {
      console.error(`k8s manifest INVALID: ${e.message}`);
      process.exit(1);
    }
    throw e;
  }
}
