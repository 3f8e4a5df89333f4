import { Duration } from "aws-cdk-lib";
import { Rule, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction as LambdaTarget } from "aws-cdk-lib/aws-events-targets";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import type { IBucket } from "aws-cdk-lib/aws-s3";
import { Construct } from "constructs";
import { bind, identityBucket } from "./bind.ts";
import type { SigningKeys } from "./signing-keys.ts";

/** CrlIssuerProps: the issuer function (functions/crl-issuer.ts), the keys, and the identity bucket that keeps the CRL. */
export interface CrlIssuerProps {
  fn: LambdaFunction;
  keys: SigningKeys;
  bucket: IBucket;
}

/**
 * CrlIssuer keeps the root CA's CRL fresh off the request path: an EventBridge rule runs the
 * issuer function daily; it signs a new CRL with the root key in KMS only when the kept one
 * (identity-root.crl in the identity bucket) is missing, another root's, or has fewer than 3 of
 * its 7 days left, so a daily run has three chances before a CRL expires. GET /v1/verify/crl
 * serves the kept one and holds no KMS permission: anonymous requests cannot spend the
 * account's KMS quota. Besides sign (B-LT, chain issuance), this is the only function that may
 * kms:Sign with the root key (SigningKeys.onlySigners).
 */
export class CrlIssuer extends Construct {
  readonly fn: LambdaFunction;
  readonly schedule: Rule;

  constructor(scope: Construct, id: string, props: CrlIssuerProps) {
    super(scope, id);
    this.fn = props.fn;
    bind(props.fn, props.keys.crlIssuer(), identityBucket(props.bucket, "crlIssuer"));
    this.schedule = new Rule(this, "Schedule", {
      description: "Signet: re-issue the root CA's CRL when it is due (daily check, 7-day CRLs re-issued with 3 days left)",
      schedule: Schedule.rate(Duration.days(1)),
      targets: [new LambdaTarget(props.fn, { retryAttempts: 2, maxEventAge: Duration.hours(6) })],
    });
  }
}
