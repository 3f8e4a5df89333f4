// Containers for tests: a configuration read from this process's environment (read, never written)
// with the test's own settings on top, and any part (a store, a mailer, a converter) handed in.
import { loadConfig, type Env } from "#config";
import { createContainer, type Container, type Parts } from "#wiring/container.ts";

/** testContainer builds a container on process.env plus `env`, with `overrides` in place of the parts they name. */
export function testContainer(env: Env = {}, overrides: Partial<Parts> = {}): Container {
  return createContainer(loadConfig({ ...process.env, ...env }), overrides);
}
