// A TypeScript program on the client OpenAPI Generator (typescript-fetch) makes from the contract, as a non-Java
// service would use Vesta: node build/client.js <base URL> <client token> <admin token>. Exits 1 on any surprise.
import { Configuration, IdsApi, SegmentsApi, AdminApi, ResponseError, IdFormat } from "../../../target/openapi-client";
// Node's globals without @types/node: the program needs only argv and exit.
declare const process: { argv: string[]; exit(code: number): never };

const [base, clientToken, adminToken] = process.argv.slice(2);
const check = (ok: boolean, what: string) => {
  if (!ok) throw new Error(`FAILED: ${what}`);
  console.log(`ok: ${what}`);
};
const withToken = (token?: string) => new Configuration({ basePath: base, accessToken: token });

/** An ID in Crockford base 32, 13 characters, unsigned: written here without Vesta's code, to check the server's. */
const crockford = (id: bigint) => {
  let value = BigInt.asUintN(64, id);
  let text = "";
  for (let i = 0; i < 13; i++) {
    text = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"[Number(value & 31n)] + text;
    value >>= 5n;
  }
  return text;
};

async function problemOf(call: () => Promise<unknown>): Promise<{ status: number; body: any; type: string }> {
  try {
    await call();
  } catch (e) {
    if (e instanceof ResponseError) {
      return { status: e.response.status, body: await e.response.json(), type: e.response.headers.get("content-type") ?? "" };
    }
    throw e;
  }
  throw new Error("FAILED: the call succeeded");
}

async function main() {
  const ids = new IdsApi(withToken(clientToken));
  const one = await ids.genId();
  check(/^[0-9]+$/.test(one.idString) && BigInt(one.idString) > 0n, `an ID: ${one.idString}`);

  const batch = await ids.genIds({ count: 5 });
  const values = batch.idStrings.map(BigInt);
  check(batch.count === 5 && values.every((v, i) => i === 0 || v > values[i - 1]), `a batch of 5, increasing`);

  // Compact strings: 13 Crockford base-32 characters that sort as the IDs do, decoded back by the server.
  const short = await ids.genIds({ count: 3, format: IdFormat.Base32 });
  check(short.format === IdFormat.Base32 && short.idStrings.every((s) => /^[0-9A-HJKMNP-TV-Z]{13}$/.test(s))
      && short.idStrings.every((s, i) => i === 0 || s > short.idStrings[i - 1]), `a batch in base32: ${short.idStrings[0]}`);
  const shortDecoded = await ids.expId({ id: short.idStrings[0], format: IdFormat.Base32 });
  check(crockford(BigInt(shortDecoded.idString)) === short.idStrings[0],
      `base32 ${short.idStrings[0]} decodes to ${shortDecoded.idString}`);
  const oneAgain = await ids.expId({ id: crockford(BigInt(one.idString)).toLowerCase(), format: IdFormat.Base32 });
  check(oneAgain.idString === one.idString, `${one.idString} in lower-case base32 decodes to itself`);
  const badForm = await problemOf(() => ids.expId({ id: "0000000000U00", format: IdFormat.Base32 }));
  check(badForm.status === 400 && badForm.body.parameter === "id", `400 problem: ${badForm.body.detail}`);

  const decoded = await ids.expId({ id: one.idString });
  check(decoded.idString === one.idString && decoded.genMethod === 2 && decoded.machine === 924
      && decoded.instant instanceof Date && Math.abs(decoded.instant.getTime() - Date.now()) < 60_000,
      `decoded: machine ${decoded.machine}, genMethod ${decoded.genMethod}, ${decoded.instant.toISOString()}`);

  const admin = new AdminApi(withToken(adminToken));
  await admin.createSegmentTag({ bizTag: "ts-orders", step: 100 });
  const segments = new SegmentsApi(withToken(clientToken));
  const first: any = await segments.segmentNumbers({ bizTag: "ts-orders" });
  const second: any = await segments.segmentNumbers({ bizTag: "ts-orders" });
  check(first.bizTag === "ts-orders" && second.id === first.id + 1, `segment numbers ${first.id}, ${second.id}`);

  const bad = await problemOf(() => ids.genIds({ count: 100001 }));
  check(bad.status === 400 && bad.type.startsWith("application/problem+json") && bad.body.parameter === "count"
      && bad.body.detail === "count must be in [1, 100000], was 100001", `400 problem: ${bad.body.detail}`);

  const none = await problemOf(() => new IdsApi(withToken()).genId());
  check(none.status === 401 && none.body.reason === "token-required", `401 without a token`);
  const wrong = await problemOf(() => new IdsApi(withToken("not-a-token-of-this-server-0000")).genId());
  check(wrong.status === 401 && wrong.body.reason === "token-required", `401 with a wrong token`);
  const forbidden = await problemOf(() => new AdminApi(withToken(clientToken)).leases({}));
  check(forbidden.status === 403 && forbidden.body.reason === "admin-token-required", `403 with a client token on admin`);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
