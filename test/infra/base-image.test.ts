import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Stack } from "aws-cdk-lib";
import { Annotations, Match } from "aws-cdk-lib/assertions";
import { DockerImageCode, DockerImageFunction } from "aws-cdk-lib/aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, resolveBaseImage } from "../../infra/app.ts";
import { repoRoot } from "../../infra/bundling.ts";
import { BaseImagePinError, type BaseImageInputs, libreOfficeBaseImage, planBaseImage } from "../../infra/base-image.ts";
import { chooseBaseImage, type PinSteps, recordPin } from "../../infra/base-image-pin.ts";
import { imageLocation, lookUpDigest, RegistryAnswerError, RegistryUnreachableError, registryDigest } from "../../infra/registry-digest.ts";
import { cdkJsonContext, SYNTH_TIMEOUT_MS, testBaseImageDigest } from "#test/helpers/infra-synth.ts";
import { startFixtureServer } from "#test/helpers/http-fixture-server.ts";
import { type RegistryBehaviour, type RegistryStandIn, startRegistryStandIn } from "#test/helpers/registry-stand-in.ts";

const work = mkdtempSync(join(tmpdir(), "signet-base-image-"));
const repository = "shelf/lambda-libreoffice-base";
const tag = libreOfficeBaseImage.split(":").pop()!;
const currentDigest = `sha256:${"a1".repeat(32)}`;
const today = new Date("2026-11-27T12:00:00Z");
let registry: RegistryStandIn;
/** closed is an origin nothing listens at (a port a server had, then gave back): connections are refused. */
let closed: string;
beforeAll(async () => {
  registry = await startRegistryStandIn({ repository, tag, digest: currentDigest });
  const server = await startFixtureServer(() => undefined);
  closed = `127.0.0.1:${server.port}`;
  await server.close();
});
afterAll(() => registry.close());

/** standInSteps look the tag up at the stand-in and record into a cdk.json copy of their own. */
function standInSteps(cdkJsonFile: string, timeoutMs = 30_000): PinSteps {
  return {
    lookUp: () => registryDigest({ origin: registry.origin, repository, tag }, timeoutMs),
    record: (digest) => recordPin(cdkJsonFile, digest, today),
  };
}

/** cdkJsonCopy is a scratch cdk.json with the repository's content. */
function cdkJsonCopy(): string {
  const file = join(mkdtempSync(join(work, "project-")), "cdk.json");
  writeFileSync(file, JSON.stringify({ app: "npx tsx infra/app.ts", context: { "@aws-cdk/core:target-partitions": ["aws"] } }, null, 2));
  return file;
}

/** imagesOf synthesizes an app and maps each image asset's hash to its build arguments. */
function imagesOf(app: App, stackName: string): Record<string, Record<string, string> | undefined> {
  app.synth();
  const assets = JSON.parse(readFileSync(join(app.outdir, `${stackName}.assets.json`), "utf8")) as {
    dockerImages: Record<string, { source: { dockerBuildArgs?: Record<string, string> } }>;
  };
  return Object.fromEntries(Object.entries(assets.dockerImages).map(([hash, image]) => [hash, image.source.dockerBuildArgs]));
}

describe("the registry look-up (the HTTP API, against a local stand-in of its protocol)", () => {
  it("gets an anonymous token from the challenge's realm and HEADs the manifest for Docker-Content-Digest", async () => {
    registry.behaviour = "bearer";
    registry.requests.length = 0;
    expect(await registryDigest({ origin: registry.origin, repository, tag }, 30_000)).toBe(currentDigest);
    expect(registry.requests).toEqual([`HEAD /v2/${repository}/manifests/${tag}`, "GET /token", `HEAD /v2/${repository}/manifests/${tag}`]);
    // The index first: FROM tag@digest takes the multi-platform digest, as imagetools prints it.
    expect(registry.lastAccept).toMatch(/^application\/vnd\.oci\.image\.index\.v1\+json, application\/vnd\.docker\.distribution\.manifest\.list\.v2\+json/);
  });

  it("takes the digest without a token from a registry that asks for none", async () => {
    registry.behaviour = "anonymous";
    expect(await registryDigest({ origin: registry.origin, repository, tag }, 30_000)).toBe(currentDigest);
  });

  // One row per fault: the stand-in's behaviour, the tag asked for, the message expected.
  const faults: Array<[string, RegistryBehaviour, string, RegExp]> = [
    ["an unknown tag (404)", "bearer", "no-such-tag", /has no tag no-such-tag \(404\)/],
    ["a 401 without a bearer challenge", "no-challenge", tag, /401 without a bearer token challenge/],
    ["a refused token", "refuse-token", tag, /refused the anonymous token \(401\)/],
    ["a 5xx", "server-error", tag, /answered 503/],
    ["no digest header", "no-digest", tag, /no Docker-Content-Digest/],
  ];
  it.each(faults)("fails with RegistryAnswerError on %s", async (_, behaviour, asked, message) => {
    registry.behaviour = behaviour;
    const error = await registryDigest({ origin: registry.origin, repository, tag: asked }, 30_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryAnswerError);
    expect((error as Error).message).toMatch(message);
  });

  it("fails with RegistryUnreachableError when the registry never answers (the time-out, set here for the case) or refuses the connection", async () => {
    registry.behaviour = "hang";
    const hung = await registryDigest({ origin: registry.origin, repository, tag }, 300).catch((e: unknown) => e);
    expect(hung).toBeInstanceOf(RegistryUnreachableError);
    expect((hung as Error).message).toMatch(/no answer within the time-out/);
    const refused = await registryDigest({ origin: `http://${closed}`, repository, tag }, 30_000).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RegistryUnreachableError);
    expect((refused as Error).message).toMatch(/ECONNREFUSED/);
  });

  it("reads image references as Docker does", () => {
    expect(imageLocation(libreOfficeBaseImage)).toEqual({ origin: "https://public.ecr.aws", repository, tag });
    expect(imageLocation("localhost:5000/a/b:1.0")).toEqual({ origin: "https://localhost:5000", repository: "a/b", tag: "1.0" });
    expect(imageLocation("node:22")).toEqual({ origin: "https://registry-1.docker.io", repository: "library/node", tag: "22" });
    expect(() => imageLocation("public.ecr.aws/shelf/x")).toThrow(/not an image reference with a tag/);
  });

  it("falls back to <CDK_DOCKER> buildx imagetools inspect when the registry gives no digest, and says why both failed", async () => {
    const fake = (name: string, script: string) => {
      const file = join(work, name);
      writeFileSync(file, `#!/bin/sh\n${script}\n`);
      chmodSync(file, 0o755);
      return file;
    };
    const log = join(work, "docker-args");
    const docker = fake(
      "docker-ok",
      `echo "$@" > "${log}"\nprintf 'Name: x\\nMediaType: application/vnd.oci.image.index.v1+json\\nDigest:    ${currentDigest}\\n'`,
    );
    const unreachable = `${closed}/shelf/lambda-libreoffice-base:26.2-node22-x86_64`;
    expect(await lookUpDigest(unreachable, { timeoutMs: 30_000, docker })).toBe(currentDigest);
    expect(readFileSync(log, "utf8").trim()).toBe(`buildx imagetools inspect ${unreachable}`);
    const failing = fake("docker-fails", "echo 'ERROR: no such host' >&2; exit 1");
    const both = await lookUpDigest(unreachable, { timeoutMs: 30_000, docker: failing }).catch((e: unknown) => e);
    expect(both).toBeInstanceOf(RegistryUnreachableError);
    expect((both as Error).message).toMatch(/unreachable.*fallback: .*docker-fails buildx imagetools inspect failed: ERROR: no such host/s);
    const missing = await lookUpDigest(unreachable, { timeoutMs: 30_000, docker: join(work, "no-docker") }).catch((e: unknown) => e);
    expect((missing as Error).message).toMatch(/fallback: .*ENOENT/);
  });
});

describe("which base image is built (precedence, review age, strict mode)", () => {
  const base: BaseImageInputs = { requirePinned: false, building: true, today };
  const shipped = { digest: `sha256:${"5".repeat(64)}`, tag: libreOfficeBaseImage, reviewed: "2026-11-01" };
  const rows: Array<[string, Partial<BaseImageInputs>, ReturnType<typeof planBaseImage>]> = [
    [
      "-c / cdk.json digest",
      { digest: testBaseImageDigest, reviewed: `2026-11-25 ${libreOfficeBaseImage}`, shipped },
      { kind: "ref", ref: `${libreOfficeBaseImage}@${testBaseImageDigest}`, warnings: [] },
    ],
    [
      "a digest for one deploy (no review line)",
      { digest: testBaseImageDigest },
      { kind: "ref", ref: `${libreOfficeBaseImage}@${testBaseImageDigest}`, warnings: [] },
    ],
    ["the shipped pin when context has none", { shipped }, { kind: "ref", ref: `${libreOfficeBaseImage}@${shipped.digest}`, warnings: [] }],
    ["a look-up when nothing is pinned", {}, { kind: "look-up", tag: libreOfficeBaseImage }],
    [
      "the bare tag, unchecked, when nothing is built",
      { building: false, requirePinned: true, digest: "not-a-digest" },
      { kind: "ref", ref: libreOfficeBaseImage, warnings: [] },
    ],
  ];
  it.each(rows)("%s", (_, inputs, expected) => {
    expect(planBaseImage({ ...base, ...inputs })).toEqual(expected);
  });

  it("warns about a review older than 90 days, naming npm run image:pin; refuses a malformed digest or one for another tag", () => {
    const old = planBaseImage({ ...base, digest: testBaseImageDigest, reviewed: `2026-08-28 ${libreOfficeBaseImage}` });
    expect(old.kind === "ref" && old.warnings).toEqual([expect.stringMatching(/reviewed 91 days ago \(2026-08-28\), more than 90.*`npm run image:pin`/)]);
    expect(planBaseImage({ ...base, digest: testBaseImageDigest, reviewed: `2026-08-29 ${libreOfficeBaseImage}` })).toMatchObject({ warnings: [] });
    expect(() => planBaseImage({ ...base, digest: "latest" })).toThrow(BaseImagePinError);
    expect(() => planBaseImage({ ...base, digest: "latest" })).toThrow(/not sha256:<64 hex digits>.*npm run image:pin/);
    expect(() =>
      planBaseImage({ ...base, digest: testBaseImageDigest, reviewed: "2026-01-01 public.ecr.aws/shelf/lambda-libreoffice-base:25.2-node22-x86_64" }),
    ).toThrow(/reviewed for .*25\.2-node22-x86_64, not for .*26\.2-node22-x86_64.*npm run image:pin/s);
  });

  it("-c requirePinnedBaseImage=true refuses to look anything up", () => {
    expect(() => planBaseImage({ ...base, requirePinned: true })).toThrow(BaseImagePinError);
    expect(() => planBaseImage({ ...base, requirePinned: true })).toThrow(
      /libreOfficeBaseImageDigest is missing.*requirePinnedBaseImage=true.*npm run image:pin/s,
    );
  });
});

describe("the first synth without a pin", () => {
  it("resolves the tag, builds FROM tag@digest, warns naming the digest and records it in cdk.json beside what was there", async () => {
    registry.behaviour = "bearer";
    const cdkJsonFile = cdkJsonCopy();
    const choice = await chooseBaseImage(planBaseImage({ requirePinned: false, building: true, today }), standInSteps(cdkJsonFile));
    expect(choice.ref).toBe(`${libreOfficeBaseImage}@${currentDigest}`);
    expect(choice.warnings).toEqual([expect.stringContaining(`resolved at synth to ${currentDigest} and recorded in cdk.json`)]);
    const written = JSON.parse(readFileSync(cdkJsonFile, "utf8")) as { app: string; context: Record<string, unknown> };
    expect(written.app).toBe("npx tsx infra/app.ts");
    expect(written.context).toEqual({
      "@aws-cdk/core:target-partitions": ["aws"],
      libreOfficeBaseImageDigest: currentDigest,
      libreOfficeBaseImageReviewed: `2026-11-27 ${libreOfficeBaseImage}`,
    });
    // The next synth reads it back as a pin: no look-up, no warning.
    expect(
      planBaseImage({ requirePinned: false, building: true, today, digest: currentDigest, reviewed: written.context.libreOfficeBaseImageReviewed as string }),
    ).toEqual({
      kind: "ref",
      ref: `${libreOfficeBaseImage}@${currentDigest}`,
      warnings: [],
    });
  });

  it("builds FROM the bare tag with a warning when the registry cannot be reached, and records nothing", async () => {
    const cdkJsonFile = cdkJsonCopy();
    const before = readFileSync(cdkJsonFile, "utf8");
    const steps: PinSteps = { ...standInSteps(cdkJsonFile), lookUp: () => registryDigest({ origin: `http://${closed}`, repository, tag }, 30_000) };
    const choice = await chooseBaseImage({ kind: "look-up", tag: libreOfficeBaseImage }, steps);
    expect(choice).toEqual({
      ref: libreOfficeBaseImage,
      warnings: [expect.stringMatching(/not pinned and the registry is unreachable.*resolved at deploy.*npm run image:pin/s)],
    });
    expect(readFileSync(cdkJsonFile, "utf8")).toBe(before);
  });

  it(
    "puts the choice into the stack: BASE_REF with the digest, and a warning annotation naming it (and one for a webmail sender)",
    async () => {
      registry.behaviour = "bearer";
      const app = new App({ outdir: mkdtempSync(join(work, "cdk-")), context: { ...cdkJsonContext, senderEmail: "signet.demo@gmail.com" } });
      const { stack } = createApp(app, await resolveBaseImage(app, standInSteps(cdkJsonCopy()), today));
      Annotations.fromStack(stack).hasWarning(`/${stack.stackName}`, Match.stringLikeRegexp(`resolved at synth to ${currentDigest}`));
      Annotations.fromStack(stack).hasWarning(
        `/${stack.stackName}`,
        Match.stringLikeRegexp("signet.demo@gmail.com is on gmail.com, a webmail domain with DMARC"),
      );
      expect(Object.values(imagesOf(app, stack.stackName))).toEqual([{ BASE_REF: `${libreOfficeBaseImage}@${currentDigest}` }]);
    },
    SYNTH_TIMEOUT_MS,
  );

  it("makes a new image for a new digest: the build argument is part of the asset hash", () => {
    const hashes = [testBaseImageDigest, currentDigest].map((digest) => {
      const app = new App({ outdir: mkdtempSync(join(work, "cdk-")) });
      const stack = new Stack(app, "Image");
      const folder = mkdtempSync(join(work, "image-"));
      writeFileSync(join(folder, "Dockerfile"), readFileSync(join(repoRoot, "layers", "libreoffice", "Dockerfile")));
      new DockerImageFunction(stack, "Office", {
        code: DockerImageCode.fromImageAsset(folder, { buildArgs: { BASE_REF: `${libreOfficeBaseImage}@${digest}` } }),
      });
      return Object.keys(imagesOf(app, stack.stackName));
    });
    expect(hashes[0]).toHaveLength(1);
    expect(hashes[1]).toHaveLength(1);
    expect(hashes[0]).not.toEqual(hashes[1]);
  });

  it(
    "asks for no digest and looks nothing up when nothing is built (the context `cdk ls` and `cdk destroy` synthesize with)",
    async () => {
      const app = new App({
        outdir: mkdtempSync(join(work, "cdk-")),
        context: { ...cdkJsonContext, senderEmail: "noreply@example.com", requirePinnedBaseImage: "true", "aws:cdk:bundling-stacks": [] },
      });
      const steps: PinSteps = {
        lookUp: () => Promise.reject(new Error("looked up")),
        record: () => {
          throw new Error("recorded");
        },
      };
      const choice = await resolveBaseImage(app, steps, today);
      expect(choice).toEqual({ ref: libreOfficeBaseImage, warnings: [] });
      expect(() => createApp(app, choice)).not.toThrow();
    },
    SYNTH_TIMEOUT_MS,
  );
});
