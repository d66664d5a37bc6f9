// Writes documents broken in the ways a hand-written contract goes wrong, each into the directory given, so that CI
// can show validate.mjs refuses every one: node broken-documents.mjs <openapi.yaml> <directory>
import { readFile, writeFile } from "node:fs/promises";
import YAML from "yaml";

const [source, directory] = process.argv.slice(2);
const text = await readFile(source, "utf8");
const breaks = {
  "misspelt-schema-keyword": (d) => { d.components.parameters.Count.schema.minimun = 1; },
  "required-inside-a-schema": (d) => { d.components.schemas.Id.properties.id.required = true; },
  "ref-to-nothing": (d) => { d.paths["/vesta/genid"].get.responses["200"].content["application/json"].schema.$ref = "#/components/schemas/Nothing"; },
  "parameter-in-body": (d) => { d.components.parameters.Count.in = "body"; },
  "responses-misspelt": (d) => { const op = d.paths["/vesta/status"].get; op.response = op.responses; delete op.responses; },
  "unknown-type": (d) => { d.components.schemas.IdType.type = "strin"; },
  "path-parameter-not-required": (d) => { d.paths["/vesta/expid/{id}"].get.parameters[0].required = false; },
  "no-info-version": (d) => { delete d.info.version; },
};
for (const [name, breakIt] of Object.entries(breaks)) {
  const doc = YAML.parse(text);
  breakIt(doc);
  await writeFile(`${directory}/${name}.yaml`, YAML.stringify(doc));
}
console.log(Object.keys(breaks).join("\n"));
