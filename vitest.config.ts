import { randomBytes } from "node:crypto";
import { defineConfig } from "vitest/config";

// Integration tests start real stand-ins (dynalite, the local SES, LibreOffice); give them room.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // The environment of every test process, set here once so no test writes process.env for it.
    // Handlers log at SILENT unless SIGNET_LOG_LEVEL is set (`SIGNET_LOG_LEVEL=WARN npm test` shows
    // them): the suite sends many requests that fail on purpose, whose ERROR lines would bury a real
    // failure; tests that check the log set a level and capture the output themselves. The AWS
    // SDK's credentials are the ones the S3 stand-in checks signatures with (local/stand-ins.ts
    // takes them from the environment): a fresh secret per run.
    env: {
      SIGNET_LOG_LEVEL: process.env.SIGNET_LOG_LEVEL ?? "SILENT",
      AWS_ACCESS_KEY_ID: "local",
      AWS_SECRET_ACCESS_KEY: randomBytes(32).toString("base64url"),
    },
    // The shared test PKI (test/helpers/pki/testing-pki.ts), built once per run; the run's folder
    // of synthesized CDK assemblies (test/helpers/infra-synth.ts: one synthesis per context per run).
    globalSetup: ["test/helpers/pki/global-setup.ts", "test/helpers/synth-cache-setup.ts"],
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
