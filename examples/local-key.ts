// API keys for local work: mint one from the running local server (register, read the code from
// the SES stand-in's store, verify), and keep one in a file so the examples reuse it instead of
// asking for a new code every run (3 codes per address per 15 minutes).
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** LocalKeyOptions say which server, which SES stand-in and which address. */
export interface LocalKeyOptions {
  baseUrl: string;
  sesUrl: string;
  email: string;
}

/** DEFAULT_KEY_FILE is where the examples keep their local key (the local server's data folder). */
export const DEFAULT_KEY_FILE = ".signet/example-key";

async function answer(response: Response, step: string): Promise<Record<string, unknown>> {
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${step} failed: ${response.status} ${String(body.code ?? "")} ${String(body.message ?? "")}`);
  return body;
}

/** readCode polls the SES stand-in's store for the newest 6-digit code sent to the address since `since`. */
async function readCode(sesUrl: string, email: string, since: number): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const store = (await (await fetch(new URL("/store", sesUrl))).json()) as {
      emails: Array<{ destination: { to?: string[] }; subject: string; body: { text?: string }; at: number }>;
    };
    const code = store.emails
      .filter((mail) => mail.destination.to?.some((to) => to.toLowerCase() === email.toLowerCase()) && mail.at * 1000 >= since - 1000)
      .map((mail) => /code is: (\d{6})/.exec(mail.body.text ?? "")?.[1])
      .filter((found): found is string => found !== undefined)
      .at(-1);
    if (code) return code;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no code for ${email} arrived in ${sesUrl}/store: is the local server running (npm start)?`);
}

/** mintLocalKey gets a new key from a local server: register, the code from the mail store, verify. */
export async function mintLocalKey(options: LocalKeyOptions): Promise<string> {
  const since = Date.now();
  const email = encodeURIComponent(options.email);
  await answer(await fetch(`${options.baseUrl}/v1/auth/register?email=${email}`), "GET /v1/auth/register");
  const code = await readCode(options.sesUrl, options.email, since);
  const issued = await answer(await fetch(`${options.baseUrl}/v1/auth/verify?email=${email}&code=${code}`), "GET /v1/auth/verify");
  return String(issued.key);
}

/** keyWorks asks the server whether a key is live (GET /v1/keys answers 200 only for a live key). */
async function keyWorks(baseUrl: string, key: string): Promise<boolean> {
  const response = await fetch(`${baseUrl}/v1/keys`, { headers: { Authorization: `Bearer ${key}` } });
  await response.body?.cancel();
  if (response.status === 401) return false;
  if (!response.ok) throw new Error(`GET /v1/keys failed: ${response.status}`);
  return true;
}

/**
 * cachedLocalKey returns the key kept in `file` if the server still accepts it; otherwise it mints
 * a new one and keeps it there (readable by the owner only). `reused` says which happened.
 */
export async function cachedLocalKey(options: LocalKeyOptions & { file: string }): Promise<{ key: string; reused: boolean }> {
  if (existsSync(options.file)) {
    const kept = readFileSync(options.file, "utf8").trim();
    if (/^sgn_[0-9A-Za-z]{38}$/.test(kept) && (await keyWorks(options.baseUrl, kept))) return { key: kept, reused: true };
  }
  const key = await mintLocalKey(options);
  mkdirSync(dirname(options.file), { recursive: true });
  writeFileSync(options.file, `${key}\n`, { mode: 0o600 });
  chmodSync(options.file, 0o600);
  return { key, reused: false };
}
