// The reference for ratios: the fastest a node:http server can answer on this machine, with a fixed body of the
// same size and content type as the avaext answer it is compared with.
import {readFileSync} from "node:fs";
import http from "node:http";

// Large bodies come in a file (an environment variable cannot hold megabytes).
const body = process.env.BARE_BODY_FILE
  ? readFileSync(process.env.BARE_BODY_FILE)
  : Buffer.from(process.env.BARE_BODY ?? "{}");
const ct = process.env.BARE_CT ?? "application/json; charset=utf-8";
const status = Number(process.env.BARE_STATUS ?? 200);
const server = http.createServer((req, res) => {
  // Drain the request like a real handler must, then answer.
  req.resume();
  req.on("end", () => {
    res.writeHead(status, {"content-type": ct, "content-length": body.length});
    res.end(body);
  });
});
server.listen(0, "127.0.0.1", () => console.log(`listening ${server.address().port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
