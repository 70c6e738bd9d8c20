import assert from "node:assert/strict";
import { parseListen, parseMcpArgs } from "../../../src/mcp/cli_args.ts";

Deno.test("--http [HOST:]PORT defaults the host to 127.0.0.1 and takes IPv6 in brackets", () => {
  assert.deepEqual(parseListen("8080"), { hostname: "127.0.0.1", port: 8080 });
  assert.deepEqual(parseListen("0.0.0.0:9000"), { hostname: "0.0.0.0", port: 9000 });
  assert.deepEqual(parseListen("[::1]:0"), { hostname: "::1", port: 0 });
  assert.deepEqual(parseListen("localhost:1"), { hostname: "localhost", port: 1 });
  for (const bad of ["", "x", "65536", "host:", ":80", "a b:80", "[::1]", "127.0.0.1:80:90"]) {
    assert.equal(typeof parseListen(bad), "string", bad);
  }
});

Deno.test("--http with its flags, in any order, next to --root and --allow-write", () => {
  assert.deepEqual(
    parseMcpArgs([
      "--root",
      "/p",
      "--http=0.0.0.0:8080",
      "--token-file",
      "/etc/bxp/token",
      "--cors-origin=https://app.example.com",
      "--max-sessions",
      "8",
      "--idle-timeout",
      "60",
      "--allow-write",
    ]),
    {
      kind: "serve",
      root: "/p",
      allowWrite: true,
      http: {
        hostname: "0.0.0.0",
        port: 8080,
        tokenFile: "/etc/bxp/token",
        noAuthOnLoopback: false,
        corsOrigin: "https://app.example.com",
        maxSessions: 8,
        idleTimeoutSeconds: 60,
        maxSessionsPerClient: null,
        bodyTimeoutSeconds: null,
        maxConnections: null,
        headerTimeoutSeconds: null,
      },
    },
  );
  assert.deepEqual(
    parseMcpArgs([
      "--http",
      "8080",
      "--root",
      "/p",
      "--no-auth-on-loopback",
      "--max-sessions-per-client=4",
      "--body-timeout",
      "5",
      "--max-connections=64",
      "--header-timeout",
      "3",
    ]),
    {
      kind: "serve",
      root: "/p",
      allowWrite: false,
      http: {
        hostname: "127.0.0.1",
        port: 8080,
        tokenFile: null,
        noAuthOnLoopback: true,
        corsOrigin: null,
        maxSessions: null,
        idleTimeoutSeconds: null,
        maxSessionsPerClient: 4,
        bodyTimeoutSeconds: 5,
        maxConnections: 64,
        headerTimeoutSeconds: 3,
      },
    },
  );
  // Without --http the stdio command is unchanged.
  assert.deepEqual(parseMcpArgs(["--root", "/p"]), { kind: "serve", root: "/p", allowWrite: false });
});

Deno.test("HTTP flags without --http, repeated, or with bad values are usage errors naming the flag", () => {
  const message = (args: string[]) => {
    const parsed = parseMcpArgs(args);
    assert.equal(parsed.kind, "usage_error", args.join(" "));
    return (parsed as { message: string }).message;
  };
  assert.equal(message(["--token-file", "t"]), "--token-file needs --http");
  assert.equal(message(["--http"]), "--http needs [HOST:]PORT");
  assert.equal(message(["--http", "1", "--http", "2"]), "--http given twice");
  assert.equal(message(["--http", "1", "--token-file"]), "--token-file needs a file");
  assert.equal(
    message(["--http", "1", "--max-sessions", "1", "--max-sessions", "2"]),
    "--max-sessions given twice",
  );
  assert.match(message(["--http", "1", "--max-sessions", "0"]), /whole number from 1/);
  assert.match(message(["--http", "1", "--idle-timeout", "-5"]), /whole number from 1/);
  assert.match(message(["--http", "1", "--cors-origin", "*"]), /needs an origin/);
  assert.match(message(["--http", "1", "--cors-origin", "https://a.example/path"]), /needs an origin/);
  assert.match(message(["--http", "nope"]), /--http needs \[HOST:\]PORT/);
  assert.equal(message(["--no-auth-on-loopback"]), "--no-auth-on-loopback needs --http");
  assert.match(
    message(["--http", "1", "--root", "/p", "--no-auth-on-loopback", "--token-file", "t"]),
    /contradict/,
  );
  assert.match(message(["--http", "1", "--root", "/p", "--body-timeout", "0"]), /whole number from 1/);
  assert.match(message(["--http", "1", "--root", "/p", "--max-sessions-per-client", "x"]), /whole number/);
});

Deno.test("--http needs --root: over HTTP a client's MCP roots are never used", () => {
  const answer = parseMcpArgs(["--http", "8080"]);
  assert.equal(answer.kind, "usage_error");
  assert.match((answer as { message: string }).message, /^--http needs --root DIR/);
});
