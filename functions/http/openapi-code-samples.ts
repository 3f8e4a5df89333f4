// Hand-written request samples for every operation (OpenAPI `x-codeSamples`): curl, JavaScript
// fetch (Node 20+, ES module) and Python requests. The reference page shows these instead of
// generated snippets, which got multipart wrong. test/integration/openapi-code-samples.test.ts runs
// them against a local server, from the repository root (they send the files in examples/files/).

import type { RouteName } from "#http/routes.ts";

/** CodeSample is one entry of an operation's `x-codeSamples`, as Scalar and Redoc read it. */
export interface CodeSample {
  lang: "Shell" | "JavaScript" | "Python";
  label: "curl" | "fetch" | "requests";
  source: string;
}

/** SAMPLE_BASE_URL is the address the samples call: the local server from `npm start`. */
const SAMPLE_BASE_URL = "http://localhost:3000";

/** SAMPLE_CODE stands for the 6-digit code from the e-mail in the verify-code samples. */
const SAMPLE_CODE = "123456";

const B = SAMPLE_BASE_URL;

// Shared pieces of the JavaScript and Python samples.
const jsAuth = "Authorization: `Bearer ${process.env.SIGNET_KEY}`";
const jsCheck = "if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);";
const pyHead = "import os, requests\n";
const pyAuth = '{"Authorization": f"Bearer {os.environ[\'SIGNET_KEY\']}"}';

const trail = '[{"type": "submit", "timestamp": "2026-11-22T09:58:00Z"}]';

/** getJson is the three samples of a GET answering JSON, without a key. */
function getJson(path: string, curlNote = ""): CodeSample[] {
  return [
    { lang: "Shell", label: "curl", source: `curl --fail-with-body -sS "${B}${path}"${curlNote}` },
    {
      lang: "JavaScript",
      label: "fetch",
      source: `const response = await fetch("${B}${path}");\n${jsCheck}\nconsole.log(await response.json());`,
    },
    {
      lang: "Python",
      label: "requests",
      source: `import requests\n\nresponse = requests.get("${B}${path}", timeout=30)\nresponse.raise_for_status()\nprint(response.json())`,
    },
  ];
}

/** authed is the three samples of a call with the key from SIGNET_KEY that answers JSON. */
function authed(method: "GET" | "POST" | "DELETE", path: string, jsPath: string, pyPath: string): CodeSample[] {
  const curlMethod = method === "GET" ? "" : ` -X ${method}`;
  return [
    { lang: "Shell", label: "curl", source: `curl --fail-with-body -sS${curlMethod} "${B}${path}" -H "Authorization: Bearer $SIGNET_KEY"` },
    {
      lang: "JavaScript",
      label: "fetch",
      source: `const response = await fetch(\`${B}${jsPath}\`, { method: "${method}", headers: { ${jsAuth} } });\n${jsCheck}\nconsole.log(await response.json());`,
    },
    {
      lang: "Python",
      label: "requests",
      source: `${pyHead}\nresponse = requests.${method.toLowerCase()}(f"${B}${pyPath}", headers=${pyAuth}, timeout=30)\nresponse.raise_for_status()\nprint(response.json())`,
    },
  ];
}

/** getToFile is the three samples of a GET answering a page or document saved to a file. */
function getToFile(path: string, file: string): CodeSample[] {
  return [
    { lang: "Shell", label: "curl", source: `curl --fail-with-body -sS "${B}${path}" -o ${file}` },
    {
      lang: "JavaScript",
      label: "fetch",
      source: `import { writeFile } from "node:fs/promises";\n\nconst response = await fetch("${B}${path}");\n${jsCheck}\nawait writeFile("${file}", await response.text());`,
    },
    {
      lang: "Python",
      label: "requests",
      source: `import requests\n\nresponse = requests.get("${B}${path}", timeout=30)\nresponse.raise_for_status()\nopen("${file}", "w", encoding="utf-8").write(response.text)`,
    },
  ];
}

/** getBinaryToFile is the three samples of a GET whose binary answer is saved to a file. */
function getBinaryToFile(path: string, file: string): CodeSample[] {
  return [
    { lang: "Shell", label: "curl", source: `curl --fail-with-body -sS "${B}${path}" -o ${file}` },
    {
      lang: "JavaScript",
      label: "fetch",
      source: `import { writeFile } from "node:fs/promises";\n\nconst response = await fetch("${B}${path}");\n${jsCheck}\nawait writeFile("${file}", Buffer.from(await response.arrayBuffer()));`,
    },
    {
      lang: "Python",
      label: "requests",
      source: `import requests\n\nresponse = requests.get("${B}${path}", timeout=30)\nresponse.raise_for_status()\nopen("${file}", "wb").write(response.content)`,
    },
  ];
}

/** codeSamples maps each route name to its samples, in the order the reference page lists them. */
export const codeSamples: Record<RouteName, CodeSample[]> = {
  info: getJson("/"),
  health: getJson("/v1/health"),
  openapi: getToFile("/openapi.json", "openapi.json"),
  docs: getToFile("/docs", "signet-docs.html"),

  "auth-register": getJson(
    "/v1/auth/register?email=me@example.com",
    "\n# the code arrives by e-mail; locally it is printed by npm start and kept at http://127.0.0.1:8005",
  ),

  "auth-verify": [
    {
      lang: "Shell",
      label: "curl",
      source: `# ${SAMPLE_CODE}: the code from the e-mail. The answer's key is shown once: keep it (export SIGNET_KEY=sgn_...)\ncurl --fail-with-body -sS "${B}/v1/auth/verify?email=me@example.com&code=${SAMPLE_CODE}"`,
    },
    {
      lang: "JavaScript",
      label: "fetch",
      source: `// ${SAMPLE_CODE}: the code from the e-mail. The key is shown once: keep it.\nconst response = await fetch("${B}/v1/auth/verify?" + new URLSearchParams({ email: "me@example.com", code: "${SAMPLE_CODE}" }));\n${jsCheck}\nconst { key } = await response.json();\nconsole.log(key);`,
    },
    {
      lang: "Python",
      label: "requests",
      source: `import requests\n\n# ${SAMPLE_CODE}: the code from the e-mail. The key is shown once: keep it.\nresponse = requests.get("${B}/v1/auth/verify", params={"email": "me@example.com", "code": "${SAMPLE_CODE}"}, timeout=30)\nresponse.raise_for_status()\nprint(response.json()["key"])`,
    },
  ],

  sign: [
    {
      lang: "Shell",
      label: "curl",
      source: `jq -n --arg doc "$(base64 < examples/files/contract.pdf | tr -d '\\n')" '{document: {base64: $doc},
  signer: {name: "Ada Lovelace", email: "ada@example.com"},
  auditTrail: [{type: "submit", timestamp: "2026-11-22T09:58:00Z"}]}' > sign.json
curl --fail-with-body -sS -X POST ${B}/v1/sign -H "Authorization: Bearer $SIGNET_KEY" \\
  -H "Content-Type: application/json" -d @sign.json -o answer.json &&
  jq -r .document.base64 answer.json | base64 -d > signed.pdf`,
    },
    {
      lang: "JavaScript",
      label: "fetch",
      source: `import { readFile, writeFile } from "node:fs/promises";

const pdf = await readFile("examples/files/contract.pdf");
const response = await fetch("${B}/v1/sign", {
  method: "POST",
  headers: { ${jsAuth}, "Content-Type": "application/json" },
  body: JSON.stringify({
    document: { base64: pdf.toString("base64") },
    signer: { name: "Ada Lovelace", email: "ada@example.com" },
    auditTrail: [{ type: "submit", timestamp: new Date().toISOString() }],
  }),
});
${jsCheck}
const { document } = await response.json();
await writeFile("signed.pdf", Buffer.from(document.base64, "base64"));`,
    },
    {
      lang: "Python",
      label: "requests",
      source: `${pyHead}import base64

pdf = base64.b64encode(open("examples/files/contract.pdf", "rb").read()).decode()
response = requests.post("${B}/v1/sign", headers=${pyAuth}, timeout=120, json={
    "document": {"base64": pdf},
    "signer": {"name": "Ada Lovelace", "email": "ada@example.com"},
    "auditTrail": ${trail},
})
response.raise_for_status()
open("signed.pdf", "wb").write(base64.b64decode(response.json()["document"]["base64"]))`,
    },
  ],

  verify: [
    {
      lang: "Shell",
      label: "curl",
      source: `jq -n --arg doc "$(base64 < signed.pdf | tr -d '\\n')" '{document: {base64: $doc}}' > verify.json
curl --fail-with-body -sS -X POST ${B}/v1/verify -H "Content-Type: application/json" -d @verify.json | jq -c '{valid, reason}'`,
    },
    {
      lang: "JavaScript",
      label: "fetch",
      source: `import { readFile } from "node:fs/promises";

const pdf = await readFile("signed.pdf");
const response = await fetch("${B}/v1/verify", {
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify({ document: { base64: pdf.toString("base64") } }),
});
${jsCheck}
const report = await response.json();
console.log(report.valid, report.reason);`,
    },
    {
      lang: "Python",
      label: "requests",
      source: `import base64, requests

pdf = base64.b64encode(open("signed.pdf", "rb").read()).decode()
response = requests.post("${B}/v1/verify", json={"document": {"base64": pdf}}, timeout=60)
response.raise_for_status()
report = response.json()
print(report["valid"], report["reason"])`,
    },
  ],

  timestamp: [
    {
      lang: "Shell",
      label: "curl",
      source: `# B-LTA renewal: fresh validation data and a document timestamp over signed.pdf (needs SIGNET_TSA_URL on the server).
jq -n --arg doc "$(base64 < signed.pdf | tr -d '\\n')" '{document: {base64: $doc}}' > timestamp.json
curl --fail-with-body -sS -X POST ${B}/v1/timestamp -H "Authorization: Bearer $SIGNET_KEY" \\
  -H "Content-Type: application/json" -d @timestamp.json -o stamped.json &&
  jq -r .document.base64 stamped.json | base64 -d > timestamped.pdf`,
    },
    {
      lang: "JavaScript",
      label: "fetch",
      source: `import { readFile, writeFile } from "node:fs/promises";

// B-LTA renewal: fresh validation data and a document timestamp (needs SIGNET_TSA_URL on the server).
const pdf = await readFile("signed.pdf");
const response = await fetch("${B}/v1/timestamp", {
  method: "POST",
  headers: { ${jsAuth}, "Content-Type": "application/json" },
  body: JSON.stringify({ document: { base64: pdf.toString("base64") } }),
});
${jsCheck}
const { document } = await response.json();
await writeFile("timestamped.pdf", Buffer.from(document.base64, "base64"));`,
    },
    {
      lang: "Python",
      label: "requests",
      source: `import base64, os, requests

# B-LTA renewal: fresh validation data and a document timestamp (needs SIGNET_TSA_URL on the server).
pdf = base64.b64encode(open("signed.pdf", "rb").read()).decode()
response = requests.post("${B}/v1/timestamp", headers=${pyAuth}, json={"document": {"base64": pdf}}, timeout=120)
response.raise_for_status()
open("timestamped.pdf", "wb").write(base64.b64decode(response.json()["document"]["base64"]))`,
    },
  ],

  "verify-key": getJson("/v1/verify/key"),
  "verify-crl": getBinaryToFile("/v1/verify/crl", "signet-root.crl"),

  "annotate-fields": [
    {
      lang: "Shell",
      label: "curl",
      source: `jq -n --arg doc "$(base64 < examples/files/template.docx | tr -d '\\n')" '{document: {base64: $doc}}' > fields.json
curl --fail-with-body -sS -X POST ${B}/v1/annotate/fields -H "Authorization: Bearer $SIGNET_KEY" \\
  -H "Content-Type: application/json" -d @fields.json | jq -c '.fields[] | {ids, group, kind}'`,
    },
    {
      lang: "JavaScript",
      label: "fetch",
      source: `import { readFile } from "node:fs/promises";

const docx = await readFile("examples/files/template.docx");
const response = await fetch("${B}/v1/annotate/fields", {
  method: "POST",
  headers: { ${jsAuth}, "Content-Type": "application/json" },
  body: JSON.stringify({ document: { base64: docx.toString("base64") } }),
});
${jsCheck}
const { fields, placeholders } = await response.json();
console.log(fields.map((field) => field.ids[0] ?? field.group), placeholders);`,
    },
    {
      lang: "Python",
      label: "requests",
      source: `${pyHead}import base64

docx = base64.b64encode(open("examples/files/template.docx", "rb").read()).decode()
response = requests.post("${B}/v1/annotate/fields", headers=${pyAuth}, json={"document": {"base64": docx}}, timeout=60)
response.raise_for_status()
print([field["ids"] or field["group"] for field in response.json()["fields"]])`,
    },
  ],

  annotate: [
    {
      lang: "Shell",
      label: "curl",
      source: `jq -n --arg doc "$(base64 < examples/files/template.docx | tr -d '\\n')" '{document: {base64: $doc}, fields: [
  {id: "customer-name", type: "text", value: "Ada Lovelace"},
  {group: "company", type: "text", value: "Analytical Engines Ltd"},
  {id: "agree", type: "checkbox", value: "true"}]}' > annotate.json
curl --fail-with-body -sS -X POST "${B}/v1/annotate?to=pdf" -H "Authorization: Bearer $SIGNET_KEY" \\
  -H "Content-Type: application/json" -d @annotate.json -o answer.json &&
  jq -r '.document.base64 | sub("^data:[^,]*,"; "")' answer.json | base64 -d > filled.pdf`,
    },
    {
      lang: "JavaScript",
      label: "fetch",
      source: `import { readFile, writeFile } from "node:fs/promises";

const docx = await readFile("examples/files/template.docx");
const png = await readFile("examples/files/signature.png");
const response = await fetch("${B}/v1/annotate?to=pdf", {
  method: "POST",
  headers: { ${jsAuth}, "Content-Type": "application/json" },
  body: JSON.stringify({
    document: { base64: docx.toString("base64") },
    fields: [
      { id: "customer-name", type: "text", value: "Ada Lovelace" },
      { group: "company", type: "text", value: "Analytical Engines Ltd" },
      { id: "signature", type: "signature", value: "data:image/png;base64," + png.toString("base64"), options: { dimensions: { height: 40 } } },
    ],
  }),
});
${jsCheck}
const { document } = await response.json(); // base64 is a data URI: data:application/pdf;base64,...
await writeFile("filled.pdf", Buffer.from(document.base64.split(",")[1], "base64"));`,
    },
    {
      lang: "Python",
      label: "requests",
      source: `${pyHead}import base64

docx = base64.b64encode(open("examples/files/template.docx", "rb").read()).decode()
response = requests.post("${B}/v1/annotate", params={"to": "pdf"}, headers=${pyAuth}, timeout=120, json={
    "document": {"base64": docx},
    "fields": [
        {"id": "customer-name", "type": "text", "value": "Ada Lovelace"},
        {"group": "company", "type": "text", "value": "Analytical Engines Ltd"},
        {"id": "items", "type": "table", "value": [["Difference engine", "1", "17,000.00"]]},
    ],
})
response.raise_for_status()
data_uri = response.json()["document"]["base64"]  # data:application/pdf;base64,...
open("filled.pdf", "wb").write(base64.b64decode(data_uri.split(",", 1)[1]))`,
    },
  ],

  convert: [
    {
      lang: "Shell",
      label: "curl",
      source: `curl --fail-with-body -sS -X POST "${B}/v1/convert?from=docx" -H "Authorization: Bearer $SIGNET_KEY" \\
  -F file=@examples/files/contract.docx -o contract.pdf`,
    },
    {
      lang: "JavaScript",
      label: "fetch",
      source: `import { readFile, writeFile } from "node:fs/promises";

// A multipart body with one part named "file"; fetch sets the Content-Type with its boundary.
const form = new FormData();
form.append("file", new Blob([await readFile("examples/files/contract.docx")]), "contract.docx");
const response = await fetch("${B}/v1/convert?from=docx", {
  method: "POST",
  headers: { ${jsAuth} },
  body: form,
});
${jsCheck}
await writeFile("contract.pdf", Buffer.from(await response.arrayBuffer()));`,
    },
    {
      lang: "Python",
      label: "requests",
      source: `${pyHead}
with open("examples/files/contract.docx", "rb") as docx:
    response = requests.post("${B}/v1/convert", params={"from": "docx"}, headers=${pyAuth},
                             files={"file": ("contract.docx", docx)}, timeout=120)
response.raise_for_status()
open("contract.pdf", "wb").write(response.content)`,
    },
  ],

  // The answer is a presigned S3 POST: send the file to `url` with every member of `fields`, then
  // use `upload` as document.upload (or convert's ?upload=).
  uploads: authed("POST", "/v1/uploads", "/v1/uploads", "/v1/uploads"),
  "keys-list": authed("GET", "/v1/keys", "/v1/keys", "/v1/keys"),
  // KEY_ID is the id GET /v1/keys lists (key_...); any key of the same address, the caller's own included.
  "keys-revoke": authed("DELETE", "/v1/keys/$KEY_ID", "/v1/keys/${process.env.KEY_ID}", "/v1/keys/{os.environ['KEY_ID']}"),
  // The one-time link from the new key's notice e-mail (REVOKE_TOKEN is its rvk_... token): opened
  // as sent it shows the key; adding &confirm=yes revokes it.
  "keys-revoke-link": [
    { lang: "Shell", label: "curl", source: `curl --fail-with-body -sS "${B}/v1/keys/revoke?token=$REVOKE_TOKEN"` },
    {
      lang: "JavaScript",
      label: "fetch",
      source: `const response = await fetch(\`${B}/v1/keys/revoke?token=\${process.env.REVOKE_TOKEN}\`);\n${jsCheck}\nconsole.log(await response.text());`,
    },
    {
      lang: "Python",
      label: "requests",
      source: `import os, requests\n\nresponse = requests.get("${B}/v1/keys/revoke", params={"token": os.environ["REVOKE_TOKEN"]}, timeout=30)\nresponse.raise_for_status()\nprint(response.text)`,
    },
  ],
};
