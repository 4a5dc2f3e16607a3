// Figures for the transport (issue 3) and health (issue 5): a trivial JSON-RPC method and a cached
// GET /ext/health, each against the bare node:http reference with a body of the same size, at 10 and 16
// connections (BENCH_CONNECTION_SET).
import {CONNECTION_SET, compare, rpcOnce, startAvaext, startBare} from "./lib.mjs";

export async function benchTransport() {
  const results = [];
  // The steady state: without --dev-backfill=0 the dev feed spends the first seconds of the run building and
  // indexing 7 days of history (~10 % of the server's CPU in a profile of the first measured run), which the
  // reference never pays. The feed still accepts its live blocks during the runs.
  const node = await startAvaext(["--health-check-frequency=1s", "--dev-backfill=0"]);
  try {
    const rpcBody = JSON.stringify({jsonrpc: "2.0", id: 1, method: "health.liveness"});
    const answer = await rpcOnce(`${node.url}/ext/health`, "health.liveness");
    const bare = await startBare(answer);
    try {
      for (const connections of CONNECTION_SET) {
        results.push(
          await compare(
            `JSON-RPC health.liveness round trip, ${connections} connections`,
            {
              url: `${node.url}/ext/health`,
              method: "POST",
              headers: {"content-type": "application/json"},
              body: rpcBody,
              connections,
            },
            {url: bare.url, method: "POST", headers: {"content-type": "application/json"}, body: rpcBody, connections},
          ),
        );
      }
    } finally {
      await bare.stop();
    }
    // Probes read cached results: the liveness path (always 200) and the holistic report (503 until the feed
    // has caught up, which is a fine probe answer too), each against a bare server with the same status and body.
    for (const p of ["/ext/health/liveness", "/ext/health"]) {
      const res = await fetch(node.url + p);
      const text = await res.text();
      const bareGet = await startBare(text, "application/json", res.status);
      try {
        const allowNon2xx = res.status !== 200;
        for (const connections of CONNECTION_SET) {
          const label = `GET ${p} (cached${allowNon2xx ? `, ${res.status}` : ""}), ${connections} connections`;
          results.push(
            await compare(
              label,
              {url: node.url + p, allowNon2xx, connections},
              {url: bareGet.url, allowNon2xx, connections},
            ),
          );
        }
      } finally {
        await bareGet.stop();
      }
    }
  } finally {
    await node.stop();
  }
  return results;
}
