import { RemovalPolicy } from "aws-cdk-lib";
import { AnyPrincipal, Effect, type IRole, PolicyStatement } from "aws-cdk-lib/aws-iam";
import { Key, KeySpec, KeyUsage } from "aws-cdk-lib/aws-kms";
import { Construct } from "constructs";
import type { Binding } from "./bind.ts";

/** signingKeyActions are the KMS calls of functions/adapters/kms-signer.ts: read the public key, sign a digest. */
const signingKeyActions = ["kms:GetPublicKey", "kms:Sign"] as const;

/**
 * SigningKeys are the two asymmetric KMS keys Signet signs with: the signing key
 * (RSA_3072, SIGN_VERIFY) signs documents, the root key (RSA_3072, SIGN_VERIFY) is Signet's own
 * root CA and signs the certificates Signet issues at first use (and CRLs). Neither private key
 * can leave KMS (asymmetric KMS keys have no export). Each key policy keeps the account's
 * administration (the CDK default) and denies kms:Sign to every principal but the sign function's
 * role (and, on the root key, the CRL issuer's, which signs the CRL off the request path), so no
 * other function, user or role can sign, whatever its IAM policies say. Asymmetric keys do
 * not rotate in KMS: re-keying is a new key and a new certificate (docs/aws.md). Retained on
 * destroy: a deleted signing key cannot be brought back, and old signatures stay verifiable without it.
 */
export class SigningKeys extends Construct {
  readonly signingKey: Key;
  readonly rootKey: Key;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const key = (name: string, description: string) =>
      new Key(this, name, {
        keySpec: KeySpec.RSA_3072,
        keyUsage: KeyUsage.SIGN_VERIFY,
        description,
        enableKeyRotation: false, // KMS rotates symmetric keys only
        removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
      });
    this.signingKey = key("SigningKey", "Signet: signs documents (PAdES); only the sign function may use kms:Sign");
    this.rootKey = key("RootKey", "Signet: root CA; signs the certificates Signet issues and its CRL; only the sign function may use kms:Sign");
  }

  /**
   * onlySigners denies kms:Sign in the key policies to every principal except the sign function's
   * role (both keys) and the CRL issuer's role (the root key: infra/crl-issuer.ts signs the CRL verify-crl serves).
   */
  onlySigners(sign: IRole, crlIssuer: IRole, jobWorker?: IRole): void {
    // The job worker runs sign's jobs through sign's own handler (infra/jobs.ts): it signs as sign does.
    const signers = jobWorker ? [sign, jobWorker] : [sign];
    for (const [key, roles] of [
      [this.signingKey, signers],
      [this.rootKey, [...signers, crlIssuer]],
    ] as const) {
      key.addToResourcePolicy(
        new PolicyStatement({
          sid: "OnlyTheSignFunctionSigns",
          effect: Effect.DENY,
          principals: [new AnyPrincipal()],
          actions: ["kms:Sign"],
          resources: ["*"],
          conditions: { StringNotEquals: { "aws:PrincipalArn": roles.map((role) => role.roleArn) } },
        }),
      );
    }
  }

  /** crlIssuer binds the root key to the CRL issuer (infra/crl-issuer.ts): SIGNET_KMS_ROOT_KEY_ID, GetPublicKey and Sign on the root key only. */
  crlIssuer(): Binding {
    return {
      env: { SIGNET_KMS_ROOT_KEY_ID: this.rootKey.keyArn },
      statements: [new PolicyStatement({ actions: [...signingKeyActions], resources: [this.rootKey.keyArn] })],
    };
  }

  /** crlReader tells verify-crl that Signet's root is in KMS (SIGNET_KMS_ROOT_KEY_ID), with no KMS permission: it serves the kept CRL. */
  crlReader(): Binding {
    return { env: { SIGNET_KMS_ROOT_KEY_ID: this.rootKey.keyArn }, statements: [] };
  }

  /** signer binds the keys to the sign function: SIGNET_KMS_KEY_ID and SIGNET_KMS_ROOT_KEY_ID (ARNs), GetPublicKey and Sign on these two keys. */
  signer(): Binding {
    return {
      env: { SIGNET_KMS_KEY_ID: this.signingKey.keyArn, SIGNET_KMS_ROOT_KEY_ID: this.rootKey.keyArn },
      statements: [new PolicyStatement({ actions: [...signingKeyActions], resources: [this.signingKey.keyArn, this.rootKey.keyArn] })],
    };
  }

  /** location tells verify-key where the key lives (SIGNET_KMS_KEY_ID), with no KMS permission at all. */
  location(): Binding {
    return { env: { SIGNET_KMS_KEY_ID: this.signingKey.keyArn }, statements: [] };
  }
}
