import assert from "node:assert/strict";
import {
  LATEST_PROTOCOL_VERSION,
  negotiateProtocolVersion,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "../../../src/mcp/protocol/versions.ts";

Deno.test("latest is 2025-11-25 and all four revisions are supported", () => {
  assert.equal(LATEST_PROTOCOL_VERSION, "2025-11-25");
  assert.deepEqual([...SUPPORTED_PROTOCOL_VERSIONS], [
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
  ]);
});

Deno.test("a supported revision is echoed", () => {
  for (const version of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) {
    assert.equal(negotiateProtocolVersion(version), version);
  }
});

Deno.test("unknown, missing or non-string revisions get the latest", () => {
  for (const requested of ["1999-01-01", "2026-07-28", "", undefined, null, 20251125, {}]) {
    assert.equal(negotiateProtocolVersion(requested), "2025-11-25");
  }
});
