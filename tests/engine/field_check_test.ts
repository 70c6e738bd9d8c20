import assert from "node:assert/strict";
import { closestColumn, firstTypo, levenshteinIgnoreCase } from "../../src/engine/field_check.ts";

Deno.test("typos close to a real header are flagged; distant names are optional columns", () => {
  assert.equal(levenshteinIgnoreCase("Amout", "amount"), 1);
  assert.equal(closestColumn("Amout", ["Date", "Amount"]), "Amount");
  assert.equal(closestColumn("Time", ["Type"]), null, "short names tolerate one edit only");
  assert.equal(closestColumn("Stamp duty reserve tax", ["Total"]), null);
  const cols = new Map([["Amount", 0], ["Date", 1]]);
  assert.deepEqual(firstTypo("[Amout] * 2", cols), { bad: "Amout", suggest: "Amount" });
  assert.equal(firstTypo("[Amount] & [Date]", cols), null);
  assert.equal(firstTypo("", cols), null);
});
