// Validates OpenAPI documents as OpenAPI 3.1, strictly: node validate.mjs <file>...
//
// 1. The document against the OpenAPI Initiative's 3.1 schema (@seriousme/openapi-schema-validator, on Ajv): its
//    structure, every field name and value type, and that every $ref resolves.
// 2. That schema checks a Schema Object only for being an object or a boolean (its `$dynamicRef: #meta` points at
//    a dialect that allows anything), so each Schema Object is also compiled as JSON Schema 2020-12 by Ajv in strict
//    mode, the OAS keywords (discriminator, xml, externalDocs, example) declared: a misspelt or misplaced keyword
//    (`minimun`, `required: true` inside a schema), a wrong type of a keyword's value or a $ref to nothing fails.
// Exits 1, printing each error, when any document is invalid.
import { readFile } from "node:fs/promises";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import YAML from "yaml";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node validate.mjs <openapi.yaml>...");
  process.exit(2);
}

/** Every Schema Object of the document, with its JSON pointer. */
function schemaObjects(doc) {
  const found = [];
  const walkSchemaHolders = (node, pointer) => {
    if (node === null || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      const here = `${pointer}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      if (key === "schema" && value !== null && typeof value === "object" && !Array.isArray(value)) {
        found.push([here, value]);
      } else if (key === "examples" || key === "example") {
        continue;
      } else {
        walkSchemaHolders(value, here);
      }
    }
  };
  walkSchemaHolders(doc.paths ?? {}, "#/paths");
  for (const section of ["parameters", "responses", "requestBodies", "headers"]) {
    walkSchemaHolders(doc.components?.[section] ?? {}, `#/components/${section}`);
  }
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    found.push([`#/components/schemas/${name}`, schema]);
  }
  return found;
}

let failed = false;
for (const file of files) {
  const errors = [];
  const validator = new Validator();
  const result = await validator.validate(file);
  if (!result.valid) {
    errors.push(...(Array.isArray(result.errors) ? result.errors : [result.errors]).map(
      (e) => `OpenAPI 3.1 schema: ${e.instancePath ?? ""} ${e.message ?? JSON.stringify(e)}${e.params ? " " + JSON.stringify(e.params) : ""}`));
  } else if (validator.version !== "3.1") {
    errors.push(`not an OpenAPI 3.1 document: version ${validator.version}`);
  }

  const doc = YAML.parse(await readFile(file, "utf8"));
  if (doc?.jsonSchemaDialect !== undefined && doc.jsonSchemaDialect !== "https://spec.openapis.org/oas/3.1/dialect/base") {
    errors.push(`jsonSchemaDialect ${doc.jsonSchemaDialect}: only the OAS base dialect is checked here`);
  }
  const ajv = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false, strictTuples: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  for (const keyword of ["discriminator", "xml", "externalDocs", "example"]) ajv.addKeyword(keyword);
  // The document as one schema resource, so that #/components/schemas/... refs resolve as they do in OpenAPI.
  const root = { $id: "https://vesta.invalid/openapi.yaml", $defs: {} };
  ajv.addKeyword({ keyword: "components" });
  ajv.addKeyword({ keyword: "paths" });
  root.components = doc?.components ?? {};
  root.paths = doc?.paths ?? {};
  try {
    ajv.addSchema(root);
  } catch (e) {
    errors.push(`the document as a schema resource: ${e.message}`);
  }
  for (const [pointer, schema] of schemaObjects(doc ?? {})) {
    try {
      ajv.getSchema(`https://vesta.invalid/openapi.yaml${pointer}`) ?? errors.push(`${pointer}: no schema there`);
    } catch (e) {
      errors.push(`${pointer}: ${e.message}`);
    }
    if (!ajv.validateSchema(schema)) {
      for (const e of ajv.errors) errors.push(`${pointer}${e.instancePath}: ${e.message}`);
    }
  }

  if (errors.length > 0) {
    failed = true;
    console.error(`${file}: INVALID`);
    for (const e of errors) console.error(`  ${e}`);
  } else {
    console.log(`${file}: valid OpenAPI ${doc.openapi}, ${Object.keys(doc.paths).length} paths, `
      + `${Object.keys(doc.components?.schemas ?? {}).length} schemas`);
  }
}
process.exit(failed ? 1 : 0);
