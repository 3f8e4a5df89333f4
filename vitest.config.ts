import { randomBytes } from "node:crypto";
import { defineConfig } from "vitest/config";

// Integration tests start real stand-ins (dynalite, the local SES, LibreOffice); give them room.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Quiet handlers unless SIGNET_LOG_LEVEL says otherwise (test/helpers/vitest-setup.ts).
    setupFiles: ["test/helpers/vitest-setup.ts"],
    // The AWS SDK's credentials in every test process, the ones the S3 stand-in checks signatures
    // with (local/stand-ins.ts takes them from the environment): a fresh secret per run, set here
    // once, so no test writes process.env to reach the stand-ins.
    env: { AWS_ACCESS_KEY_ID: "local", AWS_SECRET_ACCESS_KEY: randomBytes(32).toString("base64url") },
    // The shared test PKI (test/helpers/pki/testing-pki.ts), built once per run.
    globalSetup: ["test/helpers/pki/global-setup.ts"],
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
