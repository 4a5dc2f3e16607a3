/**
 * NFT metadata the store refuses would stop the NFT lane (it retries its oldest tokens): a lone UTF-16 surrogate is
 * valid JSON and refused by jsonb on both stores, so parsing cleans it (src/dataApi/evm/nftMetadata.ts).
 */
import {afterAll, beforeAll, expect, it} from "vitest";
import {parseNftMetadata} from "../../../../src/dataApi/evm/nftMetadata.js";
import type {SqlClient} from "../../../../src/dataApi/store/sql.js";
import {describeBackends} from "../../../helpers/sql.js";

describeBackends("NFT metadata in the store", (backend) => {
  let sql: SqlClient;
  beforeAll(async () => {
    sql = await backend.open();
  }, 120_000);
  afterAll(() => sql?.close());

  it("refuses a lone surrogate as jsonb, and takes the parsed metadata", async () => {
    const doc = '{"name":"\\ud800","description":"ok \\udfff","image":"\\ud83d\\ude00"}';
    await expect(sql.query("SELECT $1::jsonb AS j", [JSON.stringify(JSON.parse(doc))])).rejects.toMatchObject({
      code: expect.stringMatching(/^22/),
    });
    const {metadata} = parseNftMetadata(doc);
    const [row] = await sql.query<{j: Record<string, string>}>("SELECT $1::jsonb AS j", [JSON.stringify(metadata)]);
    expect(row!.j).toEqual({name: "\uFFFD", description: "ok \uFFFD", imageUri: "\u{1F600}"});
  });
});
