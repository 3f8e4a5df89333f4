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
    // The shared test PKI (test/helpers/pki/testing-pki.ts), built once per run.
    globalSetup: ["test/helpers/pki/global-setup.ts"],
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
