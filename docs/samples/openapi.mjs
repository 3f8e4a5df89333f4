import { writeFile } from "node:fs/promises";

const response = await fetch("http://localhost:3000/openapi.json");
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
await writeFile("openapi.json", await response.text());
