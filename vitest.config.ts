import { defineConfig } from "vitest/config";

// Integration tests start real stand-ins (dynalite, the local SES, LibreOffice); give them room.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
