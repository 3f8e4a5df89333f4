// A PKI on loopback for long-term validation: a root that publishes a CRL and answers OCSP, a TSA
// it issued, and signers whose certificates name the CRL or the OCSP responder. Its certificates
// name this server's URLs, so it is described (ltvPki) and built (test/helpers/pki/build.ts) per
// start, once the port is known.
import { readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { parsePemIdentity, type SigningIdentity } from "#domain/signing/signing-identity.ts";
import { buildPki } from "#test/helpers/pki/build.ts";
import type { PkiDescription } from "#test/helpers/pki/description.ts";
import { opensslAsync } from "#test/helpers/pki/openssl.ts";
import { scratchDir } from "#test/helpers/scratch.ts";

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

/** ltvPki describes the loopback PKI whose certificates name `urls`: EC P-256 throughout, the root valid 30 days, the rest 10. */
function ltvPki(urls: { crl: string; ocsp: string }): PkiDescription {
  const endEntity = ["basicConstraints = critical, CA:false", "keyUsage = critical, digitalSignature, nonRepudiation", "authorityKeyIdentifier = keyid"];
  return {
    certificates: {
      root: {
        subject: "/CN=Signet LTV Test Root",
        key: "ec-p256",
        days: 30,
        extensions: ["basicConstraints = critical, CA:true", "keyUsage = critical, keyCertSign, cRLSign", "subjectKeyIdentifier = hash"],
      },
      tsa: {
        subject: "/CN=Signet LTV Test TSA",
        key: "ec-p256",
        issuer: "root",
        days: 10,
        extensions: [...endEntity, "extendedKeyUsage = critical, timeStamping", `crlDistributionPoints = URI:${urls.crl}`],
      },
      signer: {
        subject: "/CN=Signet LTV Test Signer",
        key: "ec-p256",
        issuer: "root",
        days: 10,
        extensions: [...endEntity, `crlDistributionPoints = URI:${urls.crl}`],
      },
      "ocsp-signer": {
        subject: "/CN=Signet LTV OCSP Signer",
        key: "ec-p256",
        issuer: "root",
        days: 10,
        extensions: [...endEntity, `authorityInfoAccess = OCSP;URI:${urls.ocsp}`],
      },
    },
    crls: { root: { issuer: "root", days: 7 } },
  };
}

/**
 * startLoopbackPki listens, builds ltvPki for its URLs and serves: GET /root.crl (the root's CRL),
 * GET /ocsp/<base64> (openssl ocsp per request, the root answering from its database), POST /tsr
 * (openssl ts -reply as "tsa", tokens carrying the whole chain).
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
        return res.writeHead(200, { "content-type": "application/pkix-crl" }).end(readFileSync(join(dir, "root.crl")));
      }
      if (url.startsWith("/ocsp/")) {
        state.served.ocsp++;
        writeFileSync(join(dir, `o${id}.req`), Buffer.from(decodeURIComponent(url.slice("/ocsp/".length)), "base64"));
        const signer = ["-CA", "root.pem", "-rsigner", "root.pem", "-rkey", "root.key"];
        return void opensslAsync(dir, "ocsp", "-index", "root.index.txt", ...signer, "-reqin", `o${id}.req`, "-respout", `o${id}.resp`, "-ndays", "7").then(
          () => res.writeHead(200, { "content-type": "application/ocsp-response" }).end(readFileSync(join(dir, `o${id}.resp`))),
          fail,
        );
      }
      if (url === "/tsr" && req.method === "POST") {
        state.served.tsa++;
        writeFileSync(join(dir, `q${id}.tsq`), Buffer.concat(chunks));
        return void opensslAsync(dir, "ts", "-reply", "-config", "tsa.cnf", "-queryfile", `q${id}.tsq`, "-out", `r${id}.tsr`).then(
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
  const pki = buildPki(ltvPki({ crl: crlUrl, ocsp: ocspUrl }), dir);
  writeFileSync(join(dir, "tsa.cnf"), tsaConfig(dir));
  writeFileSync(join(dir, "tsaserial"), "01\n");

  return {
    dir,
    rootPem: pki.certificatePath("root"),
    crlUrl,
    ocspUrl,
    tsaUrl: `${base}/tsr`,
    identity: (options = {}) => parsePemIdentity(pki.identityPem(options.ocsp ? "ocsp-signer" : "signer")),
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

/** tsaConfig is `openssl ts -reply`'s configuration: "tsa" signs, SHA-256, tokens carrying the root. */
function tsaConfig(dir: string): string {
  return [
    "[ tsa ]",
    "default_tsa = tsa_config",
    "[ tsa_config ]",
    `dir = ${dir}`,
    "serial = $dir/tsaserial",
    "crypto_device = builtin",
    "signer_cert = $dir/tsa.pem",
    "certs = $dir/root.pem",
    "signer_key = $dir/tsa.key",
    "signer_digest = sha256",
    "default_policy = 1.2.3.4.1",
    "digests = sha256",
    "accuracy = secs:1",
    "ess_cert_id_alg = sha256",
    "",
  ].join("\n");
}
