import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import type * as z from "zod";
import { errorCodes } from "#domain/shared/errors.ts";
import { errorBodySchema } from "#http/contracts/common.ts";
import { errorTable, reasonPhrases } from "#http/error-table.ts";
import { errorCodesOf, openApiDocument } from "#http/openapi.ts";
import { routes } from "#http/routes.ts";

interface Example {
  summary?: string;
  value: unknown;
}
interface Media {
  schema?: Record<string, unknown>;
  example?: unknown;
  examples?: Record<string, Example>;
}
interface Response {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, Media>;
}
interface Operation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: unknown }>;
  requestBody?: { required: boolean; content: Record<string, Media> };
  responses: Record<string, Response>;
}

const document = openApiDocument("0.0.0-test");
const json = JSON.parse(JSON.stringify(document)) as { paths: Record<string, Record<string, Operation>>; components: { responses: Record<string, Response> } };
const operationOf = (route: (typeof routes)[number]) => json.paths[route.path]?.[route.method.toLowerCase()];
const examplesOf = (media: Media | undefined): Example[] =>
  media ? [...Object.values(media.examples ?? {}), ...(media.example !== undefined ? [{ value: media.example }] : [])] : [];

describe("the OpenAPI document is complete", () => {
  it("validates as OpenAPI 3.1 with @seriousme/openapi-schema-validator", async () => {
    const result = await new Validator().validate(structuredClone(document) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("lists exactly the routes of the catalogue", () => {
    const listed = Object.entries(json.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
    expect(listed.sort()).toEqual(routes.map((route) => `${route.method} ${route.path}`).sort());
  });

  describe.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))("%s", (_name, route) => {
    const operation = operationOf(route)!;

    it("has an id, summary, description, tag and a documented 200 with the X-Request-Id header", () => {
      expect(operation.operationId).toMatch(/^[a-zA-Z]+$/);
      expect(operation.summary).toBeTruthy();
      expect(operation.description).toBeTruthy();
      expect(operation.tags).toEqual([route.tag]);
      const ok = operation.responses["200"]!;
      expect(ok.content?.[route.success.contentType]?.schema).toBeDefined();
      for (const response of Object.values(operation.responses)) expect(Object.keys(response.headers ?? {})).toContain("X-Request-Id");
    });

    it("documents the 202 of Prefer: respond-async (Location, Retry-After, the job) exactly on the routes that run as jobs", () => {
      const accepted = operation.responses["202"];
      expect(accepted !== undefined).toBe(route.async === true);
      if (!accepted) return;
      expect(Object.keys(accepted.headers ?? {})).toEqual(expect.arrayContaining(["Location", "Retry-After", "Preference-Applied"]));
      expect(JSON.stringify(accepted.content?.["application/json"]?.schema)).toContain("#/components/schemas/Job");
      expect(operation.responses["504"]?.description).toContain("SYNC_TIMEOUT");
    });

    it("documents every query and path parameter", () => {
      const shape = (route.query as z.ZodObject | undefined)?.shape ?? {};
      const pathShape = route.params?.shape ?? {};
      const parameters = operation.parameters ?? [];
      expect(
        parameters
          .filter((parameter) => parameter.in === "path")
          .map((parameter) => parameter.name)
          .sort(),
      ).toEqual(Object.keys(pathShape).sort());
      for (const name of Object.keys(pathShape)) expect(route.path).toContain(`{${name}}`);
      for (const parameter of parameters.filter((parameter) => parameter.in === "path")) expect(parameter.required).toBe(true);
      // Idempotent routes take Idempotency-Key, async routes Prefer, both optional; no other header is a parameter.
      const headerParameters = parameters.filter((parameter) => parameter.in === "header");
      expect(headerParameters.map((parameter) => [parameter.name, Boolean(parameter.required)])).toEqual([
        ...(route.idempotent ? [["Idempotency-Key", false]] : []),
        ...(route.async ? [["Prefer", false]] : []),
      ]);
      const queryParameters = parameters.filter((parameter) => parameter.in !== "path" && parameter.in !== "header");
      expect(queryParameters.map((parameter) => parameter.name).sort()).toEqual(Object.keys(shape).sort());
      for (const parameter of queryParameters) {
        expect(parameter.in).toBe("query");
        const optional = (shape[parameter.name] as z.ZodType).safeParse(undefined).success;
        expect(Boolean(parameter.required), `${parameter.name} required`).toBe(!optional);
      }
    });

    it("documents the request body, and every example of it passes the route's own schema", () => {
      if (route.body.kind === "none") {
        expect(operation.requestBody).toBeUndefined();
        return;
      }
      if (route.body.kind === "multipart") {
        const media = operation.requestBody?.content["multipart/form-data"];
        expect(media?.schema).toMatchObject({ properties: { file: { type: "string", format: "binary" } } });
        return;
      }
      const media = operation.requestBody!.content["application/json"];
      const examples = examplesOf(media);
      expect(examples.length, "at least one request example").toBeGreaterThan(0);
      for (const example of examples) {
        const parsed = route.body.schema.safeParse(example.value);
        expect(parsed.error?.issues ?? [], `example "${example.summary}"`).toEqual([]);
      }
    });

    it("documents each error code it can answer with, with an example in the error layout", () => {
      const codes = errorCodesOf(route);
      if (route.auth) expect(codes).toContain("AUTHENTICATION_ERROR");
      if (route.idempotent) expect(codes).toEqual(expect.arrayContaining(["IDEMPOTENCY_KEY_REUSED", "IDEMPOTENCY_KEY_IN_USE"]));
      if (route.idempotent) expect(Object.keys(operation.responses["200"]!.headers ?? {})).toContain("Idempotent-Replayed");
      for (const code of codes) {
        const status = errorTable[code].status;
        const response = operation.responses[String(status)];
        expect(response, `${code}: response ${status}`).toBeDefined();
        expect(response!.description).toContain(code);
        const example = response!.content?.["application/json"]?.examples?.[code];
        expect(example, `${code}: example`).toBeDefined();
        const body = errorBodySchema.parse(example!.value);
        expect(body).toMatchObject({ code, error: reasonPhrases[status] });
        expect(body.message.length).toBeGreaterThan(10);
        if (status === 429 || status === 409) expect(Object.keys(response!.headers ?? {})).toContain("Retry-After");
      }
    });

    it("has success examples that fit the success schema", () => {
      const { alternative } = route.success;
      if (alternative) {
        const content = operation.responses["200"]!.content?.[alternative.contentType];
        expect(content?.schema).toBeDefined();
        if (alternative.example !== undefined) expect(alternative.schema.safeParse(alternative.example).error?.issues ?? []).toEqual([]);
      }
      const schema = route.success.schema;
      const examples = examplesOf(operation.responses["200"]!.content?.[route.success.contentType]);
      if (!schema) return;
      for (const example of examples) {
        const parsed = schema.safeParse(example.value);
        expect(parsed.error?.issues ?? [], `example "${example.summary}"`).toEqual([]);
      }
    });
  });

  it("has a request example for sign (PDF and DOCX), annotate with every field type and a group, and verify", () => {
    const values = (name: string) =>
      examplesOf(operationOf(routes.find((route) => route.name === name)!)!.requestBody?.content["application/json"]).map((example) => example.value);
    const sign = JSON.stringify(values("sign"));
    expect(sign).toContain("JVBERi0"); // a real PDF, base64
    expect(sign).toMatch(/\.docx"/);
    const fields = values("annotate").flatMap((value) => (value as { fields: Array<{ type: string; group?: string }> }).fields);
    expect(new Set(fields.map((field) => field.type))).toEqual(new Set(["text", "image", "signature", "table", "checkbox"]));
    expect(fields.some((field) => field.group)).toBe(true);
    expect(values("verify").length).toBeGreaterThan(0);
  });

  it("documents the binary answer of convert with its Content-Disposition, PDF and DOCX", () => {
    const convert = operationOf(routes.find((route) => route.name === "convert")!)!;
    const ok = convert.responses["200"]!;
    expect(Object.keys(ok.content ?? {})).toEqual(
      expect.arrayContaining(["application/pdf", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"]),
    );
    expect(Object.keys(ok.headers ?? {})).toContain("Content-Disposition");
  });

  it("has an example for every error code of docs/errors.md somewhere in the document", () => {
    const text = JSON.stringify(json);
    for (const code of errorCodes) expect(text, code).toContain(`"code":"${code}"`);
    expect(Object.keys(json.components.responses)).toEqual(expect.arrayContaining(["NotFound", "MethodNotAllowed"]));
  });
});
