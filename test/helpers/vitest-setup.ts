// Runs before every test file (vitest.config.ts setupFiles). Handlers log at SILENT unless
// SIGNET_LOG_LEVEL is set (e.g. `SIGNET_LOG_LEVEL=WARN npm test` to see them): the suite sends
// many requests that fail on purpose (refused mail, SSRF refusals, CRL mismatches), whose ERROR
// lines would bury a real failure. Tests that check what is logged set a level and capture the
// output themselves (test/helpers/keys-harness.ts captureOutput).
process.env.SIGNET_LOG_LEVEL ??= "SILENT";
