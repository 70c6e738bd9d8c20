/** The version of this build of bxp-cli and bxp-mcp. */
export const VERSION = "0.1.0";
