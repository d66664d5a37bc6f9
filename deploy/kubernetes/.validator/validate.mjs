// Validates Kubernetes manifests against the Kubernetes OpenAPI schemas, offline: kubernetes-models holds a model per
// kind with its schema compiled by ajv from the Kubernetes OpenAPI document (a 1.31-or-later API), and each object is
// checked by the model of its apiVersion and kind. A kind it has no model of is an error, not a skip, and so is a
// file with no object. The schemas allow fields they do not know (as Kubernetes' own OpenAPI does): a misspelt field
// name passes here; a wrong type, a missing required field or an unknown kind does not.
//
//   node validate.mjs FILE...          every object of every YAML document; exit 1 if any is invalid
//   node validate.mjs --self-check FILE
//       breaks FILE's StatefulSet in ways a schema must catch (a number as a string, a port by a wrong type, a
//       required field removed) and fails unless each broken copy is refused: a validator that passes everything
//       would pass the manifests too.
import { readFile } from "node:fs/promises";
import { parseAllDocuments } from "yaml";

async function modelOf(apiVersion, kind) {
  if (typeof apiVersion !== "string" || typeof kind !== "string" || !/^[A-Za-z0-9.\/]+$/.test(apiVersion)
      || !/^[A-Za-z0-9]+$/.test(kind)) {
    throw new Error(`no apiVersion/kind (${apiVersion}/${kind})`);
  }
  // Core kinds are kubernetes-models/v1/Service; the others kubernetes-models/apps/v1/StatefulSet.
  try {
    const module = await import(`kubernetes-models/${apiVersion}/${kind}`);
    return module[kind];
  } catch (e) {
    throw new Error(`${apiVersion} ${kind} is not a kind of the Kubernetes API (${e.code ?? e.message})`);
  }
}

/** The errors of one object, or [] when it is valid. */
async function errorsOf(object) {
  let Model;
  try {
    Model = await modelOf(object?.apiVersion, object?.kind);
  } catch (e) {
    return [e.message];
  }
  try {
    new Model(object).validate();
    return [];
  } catch (e) {
    return e.errors ? e.errors.map((error) => `${error.instancePath || "/"} ${error.message}`) : [e.message];
  }
}

/** The objects of a file, parsed strictly (a duplicate key or a tab is an error). */
async function objectsOf(file) {
  const documents = parseAllDocuments(await readFile(file, "utf8"), { uniqueKeys: true, strict: true });
  const objects = [];
  for (const document of documents) {
    if (document.errors.length > 0) {
      throw new Error(document.errors.map((error) => error.message).join("; "));
    }
    const object = document.toJS();
    if (object !== null && object !== undefined) {
      objects.push(object);
    }
  }
  if (objects.length === 0) {
    throw new Error("no Kubernetes object in it");
  }
  return objects;
}

async function validateFiles(files) {
  let failed = 0;
  for (const file of files) {
    let objects;
    try {
      objects = await objectsOf(file);
    } catch (e) {
      console.error(`${file}: ${e.message}`);
      failed++;
      continue;
    }
    for (const object of objects) {
      const name = `${object?.kind} ${object?.metadata?.name}`;
      const errors = await errorsOf(object);
      if (errors.length === 0) {
        console.log(`${file}: ${name} valid`);
      } else {
        failed++;
        for (const error of errors) {
          console.error(`${file}: ${name} INVALID: ${error}`);
        }
      }
    }
  }
  return failed;
}

/** Each broken copy of the file's StatefulSet must be refused, and the unbroken one accepted. */
async function selfCheck(file) {
  const statefulSet = (await objectsOf(file)).find((object) => object.kind === "StatefulSet");
  if (!statefulSet) {
    throw new Error(`${file} holds no StatefulSet to break`);
  }
  const breakages = {
    "replicas as a string": (s) => { s.spec.replicas = String(s.spec.replicas); },
    "containerPort as a string": (s) => { s.spec.template.spec.containers[0].ports[0].containerPort = "8080"; },
    "a container without its name": (s) => { delete s.spec.template.spec.containers[0].name; },
    "env as a map": (s) => { s.spec.template.spec.containers[0].env = { SERVER_PORT: "8080" }; },
    "an unknown kind": (s) => { s.kind = "StatefulSett"; },
  };
  let wrong = 0;
  if ((await errorsOf(statefulSet)).length > 0) {
    console.error(`self-check: the unbroken StatefulSet of ${file} is refused`);
    wrong++;
  }
  for (const [what, breakIt] of Object.entries(breakages)) {
    const broken = structuredClone(statefulSet);
    breakIt(broken);
    const errors = await errorsOf(broken);
    if (errors.length === 0) {
      console.error(`self-check: a StatefulSet with ${what} passed`);
      wrong++;
    } else {
      console.log(`self-check: a StatefulSet with ${what} is refused (${errors[0]})`);
    }
  }
  return wrong;
}

const args = process.argv.slice(2);
if (args[0] === "--self-check") {
  process.exitCode = args.length === 2 && (await selfCheck(args[1])) === 0 ? 0 : 1;
} else if (args.length === 0) {
  console.error("usage: node validate.mjs FILE... | --self-check FILE");
  process.exitCode = 2;
} else {
  process.exitCode = (await validateFiles(args)) === 0 ? 0 : 1;
}
