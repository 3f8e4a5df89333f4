import { writeFile } from "node:fs/promises";

const response = await fetch("http://localhost:3000/v1/verify/crl");
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
await writeFile("signet-root.crl", Buffer.from(await response.arrayBuffer()));
