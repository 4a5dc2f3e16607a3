/** admin.getConfig's values (src/admin/service.ts effectiveConfig): every URL a flag holds is shown redacted. */
import {describe, expect, it} from "vitest";
import {effectiveConfig} from "../../../src/admin/service.js";
import {resolveConfig} from "../../../src/cli/config.js";

describe("admin.getConfig", () => {
  it("shows no credential, query or key path of any configured URL", () => {
    const config = resolveConfig({
      cli: {
        "data-dir": "/tmp/avaext-config-test",
        "data-api-db": "postgres://avaext:pa,ss@db.example:5432/avaext",
        "evm-rpc": "C=HTTPS://u:SECRET1@node.example/ext/bc/C/rpc?key=SECRET2,99=http://127.0.0.1:8545/v3/SECRET3",
        "warp-signer-urls": "http://u:SECRET4@10.0.0.5:9650,http://10.0.0.6:9650/SECRET5",
        "platform-rpc": "http://127.0.0.1:9650/?token=SECRET6",
        feed: "http://u:SECRET7@upstream.example:9650",
      },
      env: {},
    });
    const shown = JSON.stringify(effectiveConfig(config));
    for (const s of ["pa,ss", "ss@", "SECRET1", "SECRET2", "SECRET3", "SECRET4", "SECRET5", "SECRET6", "SECRET7"])
      expect(shown, s).not.toContain(s);
    const c = effectiveConfig(config);
    expect(c["data-api-db"]).toBe("postgres://db.example:5432/…");
    expect(c["evm-rpc"]).toBe("C=https://node.example/ext/bc/C/rpc,99=http://127.0.0.1:8545/…");
    expect(c["warp-signer-urls"]).toEqual(["http://10.0.0.5:9650", "http://10.0.0.6:9650/…"]);
    expect(c.feed).toBe("http://upstream.example:9650");
    expect(c["http-port"]).toBe(config["http-port"]);
  });
});
