import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { parsePemIdentity, type SigningIdentity } from "#domain/signing/signing-identity.ts";
import { openssl, scratchDir } from "#test/helpers/sign-tools.ts";

const run = promisify(execFile);

/** LoopbackPki is a root CA on 127.0.0.1 with a CRL, an OCSP responder and a TSA, all openssl. */
export interface LoopbackPki {
  dir: string;
  /** PEM file of the root, for validators. */
  rootPem: string;
  crlUrl: string;
  ocspUrl: string;
  tsaUrl: string;
  /** A signing identity whose certificate names the CRL (or the OCSP responder with `ocsp`). */
  identity(options?: { ocsp?: boolean }): SigningIdentity;
  /** Requests served, by kind. */
  served: { crl: number; ocsp: number; tsa: number };
  /** Makes the CRL URL answer this HTTP status instead (0: serve the CRL). */
  failCrl: number;
  close(): Promise<void>;
}

/**
 * startLoopbackPki makes a root CA with openssl, a TSA certificate it issues (timeStamping,
 * pointing at the CRL) and serves: GET /root.crl (openssl ca -gencrl), GET /ocsp/<base64>
 * (openssl ocsp per request), POST /tsr (openssl ts -reply, tokens carrying the whole chain).
 */
export async function startLoopbackPki(): Promise<LoopbackPki> {
  const dir = scratchDir("ltv-pki");
  const state = { served: { crl: 0, ocsp: 0, tsa: 0 }, failCrl: 0, counter: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const id = ++state.counter;
      const url = req.url ?? "/";
      const fail = () => res.writeHead(500).end();
      if (url === "/root.crl") {
        state.served.crl++;
        if (state.failCrl) return res.writeHead(state.failCrl).end("no");
        return res.writeHead(200, { "content-type": "application/pkix-crl" }).end(readFileSync(join(dir, "root.crl.der")));
      }
      if (url.startsWith("/ocsp/")) {
        state.served.ocsp++;
        writeFileSync(join(dir, `o${id}.req`), Buffer.from(decodeURIComponent(url.slice("/ocsp/".length)), "base64"));
        const args = [
          "ocsp",
          "-index",
          "index.txt",
          "-CA",
          "ca.crt",
          "-rsigner",
          "ca.crt",
          "-rkey",
          "ca.key",
          "-reqin",
          `o${id}.req`,
          "-respout",
          `o${id}.resp`,
          "-ndays",
          "7",
        ];
        return void run("openssl", args, { cwd: dir }).then(
          () => res.writeHead(200, { "content-type": "application/ocsp-response" }).end(readFileSync(join(dir, `o${id}.resp`))),
          fail,
        );
      }
      if (url === "/tsr" && req.method === "POST") {
        state.served.tsa++;
        writeFileSync(join(dir, `q${id}.tsq`), Buffer.concat(chunks));
        return void run("openssl", ["ts", "-reply", "-config", "ca.cnf", "-queryfile", `q${id}.tsq`, "-out", `r${id}.tsr`], { cwd: dir }).then(
          () => res.writeHead(200, { "content-type": "application/timestamp-reply" }).end(readFileSync(join(dir, `r${id}.tsr`))),
          fail,
        );
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const crlUrl = `${base}/root.crl`;
  const ocspUrl = `${base}/ocsp`;

  writeFileSync(
    join(dir, "ca.cnf"),
    [
      "[ ca ]",
      "default_ca = root",
      "[ root ]",
      `dir = ${dir}`,
      "database = $dir/index.txt",
      "crlnumber = $dir/crlnumber",
      "default_md = sha256",
      "default_crl_days = 7",
      "[ tsa ]",
      "default_tsa = tsa_config",
      "[ tsa_config ]",
      `dir = ${dir}`,
      "serial = $dir/tsaserial",
      "crypto_device = builtin",
      "signer_cert = $dir/tsa.crt",
      "certs = $dir/ca.crt",
      "signer_key = $dir/tsa.key",
      "signer_digest = sha256",
      "default_policy = 1.2.3.4.1",
      "digests = sha256",
      "accuracy = secs:1",
      "ess_cert_id_alg = sha256",
      "[ v3_ca ]",
      "basicConstraints = critical, CA:true",
      "keyUsage = critical, keyCertSign, cRLSign",
      "subjectKeyIdentifier = hash",
      "[ tsa_ext ]",
      "basicConstraints = critical, CA:false",
      "keyUsage = critical, digitalSignature, nonRepudiation",
      "extendedKeyUsage = critical, timeStamping",
      `crlDistributionPoints = URI:${crlUrl}`,
      "authorityKeyIdentifier = keyid",
      "[ signer_crl ]",
      "basicConstraints = critical, CA:false",
      "keyUsage = critical, digitalSignature, nonRepudiation",
      `crlDistributionPoints = URI:${crlUrl}`,
      "authorityKeyIdentifier = keyid",
      "[ signer_ocsp ]",
      "basicConstraints = critical, CA:false",
      "keyUsage = critical, digitalSignature, nonRepudiation",
      `authorityInfoAccess = OCSP;URI:${ocspUrl}`,
      "authorityKeyIdentifier = keyid",
      "",
    ].join("\n"),
  );
  writeFileSync(join(dir, "index.txt"), "");
  writeFileSync(join(dir, "crlnumber"), "01\n");
  writeFileSync(join(dir, "tsaserial"), "01\n");
  openssl(
    dir,
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "30",
    "-subj",
    "/CN=Signet LTV Test Root",
    "-config",
    "ca.cnf",
    "-extensions",
    "v3_ca",
  );
  const issue = (name: string, subject: string, extensions: string) => {
    openssl(dir, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject);
    openssl(
      dir,
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      `${name}.crt`,
      "-days",
      "10",
      "-extfile",
      "ca.cnf",
      "-extensions",
      extensions,
    );
    // Known to the OCSP responder as valid: an index.txt line (V, expiry, no revocation, serial, unknown file, subject).
    const serial = openssl(dir, "x509", "-in", `${name}.crt`, "-noout", "-serial").trim().split("=")[1]!;
    const expiry = new Date(Date.now() + 10 * 86_400_000).toISOString().replace(/[-:T]/g, "").slice(2, 14) + "Z";
    writeFileSync(join(dir, "index.txt"), `V\t${expiry}\t\t${serial}\tunknown\t${subject}\n`, { flag: "a" });
  };
  issue("tsa", "/CN=Signet LTV Test TSA", "tsa_ext");
  issue("signer", "/CN=Signet LTV Test Signer", "signer_crl");
  issue("ocsp-signer", "/CN=Signet LTV OCSP Signer", "signer_ocsp");
  openssl(dir, "ca", "-gencrl", "-config", "ca.cnf", "-keyfile", "ca.key", "-cert", "ca.crt", "-out", "root.crl.pem");
  openssl(dir, "crl", "-in", "root.crl.pem", "-outform", "DER", "-out", "root.crl.der");

  const read = (name: string) => readFileSync(join(dir, name), "utf8");
  return {
    dir,
    rootPem: join(dir, "ca.crt"),
    crlUrl,
    ocspUrl,
    tsaUrl: `${base}/tsr`,
    identity: (options = {}) => {
      const name = options.ocsp ? "ocsp-signer" : "signer";
      const key = openssl(dir, "pkcs8", "-topk8", "-nocrypt", "-in", `${name}.key`);
      return parsePemIdentity(key + read(`${name}.crt`) + read("ca.crt"));
    },
    served: state.served,
    get failCrl() {
      return state.failCrl;
    },
    set failCrl(status: number) {
      state.failCrl = status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
