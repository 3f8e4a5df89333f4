import { writeFile } from "node:fs/promises";

const response = await fetch("http://localhost:3000/docs");
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
await writeFile("signet-docs.html", await response.text());
