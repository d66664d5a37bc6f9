// A TypeScript program on the client OpenAPI Generator (typescript-fetch) makes from the contract, as a non-Java
// service would use Vesta: node build/client.js <base URL> <client token> <admin token>. Exits 1 on any surprise.
import { Configuration, IdsApi, SegmentsApi, AdminApi, ResponseError } from "../../../target/openapi-client";
// Node's globals without @types/node: the program needs only argv and exit.
declare const process: { argv: string[]; exit(code: number): never };

const [base, clientToken, adminToken] = process.argv.slice(2);
const check = (ok: boolean, what: string) => {
  if (!ok) throw new Error(`FAILED: ${what}`);
  console.log(`ok: ${what}`);
};
const withToken = (token?: string) => new Configuration({ basePath: base, accessToken: token });

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
