import { Stack, Validations } from "aws-cdk-lib";
import type { RestApi } from "aws-cdk-lib/aws-apigateway";
import type { Bucket } from "aws-cdk-lib/aws-s3";
import { Runtime, type Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import type { OfficeWorker } from "./office-worker.ts";

/**
 * acknowledgeNagFindings records, with its reason, every cdk-nag AwsSolutions finding the stack
 * keeps on purpose (test/infra/nag.test.ts runs the checks; any finding not acknowledged here
 * fails it). Each acknowledgement sits on the narrowest construct that raises it.
 */
export function acknowledgeNagFindings(parts: NagParts): void {
  acknowledgeFunctionFindings(parts);
  Validations.of(parts.uploadsBucket).acknowledge({
    id: "AwsSolutions-S1",
    reason:
      "Uploads are transient (deleted after use, expired by the 1-day lifecycle rule) and written only through presigned POSTs scoped to one key each; server access logs would cost more than they tell. The identity bucket, which holds the signing key, keeps its access logs.",
  });
  acknowledgeApiFindings(parts.api);
}

/** NagParts are the constructs the acknowledgements sit on. */
interface NagParts {
  functions: Record<string, LambdaFunction>;
  api: RestApi;
  uploadsBucket: Bucket;
  office: OfficeWorker;
  sesSandbox: boolean;
}

/** AWS_CUSTOM_RESOURCE_SINGLETON is the id CDK gives the one function behind every AwsCustomResource. */
const AWS_CUSTOM_RESOURCE_SINGLETON = "AWS679f53fac002430cb0da5b7982bd2287";

/** prefixFindings: the uploads bucket's folders whose objects are named at run time, who touches each, and why a prefix it is. */
const prefixFindings: Array<{ prefix: string; names: string[]; reason: string }> = [
  {
    prefix: "uploads",
    names: [
      "uploads",
      "sign",
      "timestamp",
      "annotate",
      "annotate-fields",
      "convert",
      "verify",
      "jobs-worker",
      "stamp",
      "metadata",
      "merge",
      "split",
      "pages",
      "protect",
      "unprotect",
    ],
    reason:
      "Upload objects are named per request at run time (uploads/<owner tag>/<reference>), so no fixed object ARN exists; the statement is limited to the uploads/ prefix of the uploads bucket and to the calls each function makes (uploads: PutObject through the presigned POST; the consumers: GetObject and DeleteObject; split also PutObject, to keep its parts as uploads of the caller).",
  },
  {
    prefix: "jobs",
    names: ["sign", "timestamp", "annotate", "convert", "verify", "job", "job-redeliver", "jobs-worker", "webhook-sweeper"],
    reason:
      "A job's request and result are named by its id at run time (jobs/<job id>/request, /result), so no fixed object ARN exists; the statement is limited to the jobs/ prefix of the uploads bucket (expired by its expire-jobs rule) and to PutObject, GetObject and DeleteObject.",
  },
  {
    prefix: "office",
    names: ["sign", "annotate", "convert", "jobs-worker", "merge", "split", "pages"],
    reason:
      "Documents staged for the office function are named per job at run time (office/<random id>/input and /output), so no fixed object ARN exists; the statement is limited to the office/ prefix of the uploads bucket and to PutObject, GetObject and DeleteObject, which the caller's presigned URLs lend the office function for one object each.",
  },
  {
    prefix: "idempotency",
    names: [
      "sign",
      "timestamp",
      "annotate",
      "annotate-fields",
      "convert",
      "jobs-worker",
      "stamp",
      "metadata",
      "merge",
      "split",
      "pages",
      "protect",
      "unprotect",
    ],
    reason:
      "Answers kept for Idempotency-Key replay are named per record and run at run time (idempotency/<scope hash>/<run id>), so no fixed object ARN exists; the statement is limited to the idempotency/ prefix of the uploads bucket (expired by its one-day rule) and to PutObject, GetObject and DeleteObject.",
  },
];

/** acknowledgeFunctionFindings: the functions' managed logging policies, runtime, and the wildcard object and identity ARNs. */
function acknowledgeFunctionFindings(parts: NagParts): void {
  for (const [name, fn] of Object.entries(parts.functions)) {
    Validations.of(fn).acknowledge({
      id: "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]",
      reason:
        "AWSLambdaBasicExecutionRole is AWS's minimal logging policy (logs:CreateLogGroup/CreateLogStream/PutLogEvents); each function writes only to its own log group. Every other permission is an inline least-privilege statement (infra/bind.ts).",
    });
    if (fn.runtime.name === Runtime.NODEJS_22_X.name) {
      Validations.of(fn).acknowledge({
        id: "AwsSolutions-L1",
        reason: `${name} runs on Node.js 22 (an LTS release supported by Lambda), the same major as the LibreOffice image's base (nodejs:22) and the local server, so every function runs what the tests ran. Moving to a newer runtime is a deliberate upgrade of all of them together.`,
      });
    }
  }
  for (const { prefix, names, reason } of prefixFindings) {
    for (const name of names) {
      const fn = parts.functions[name];
      if (fn) Validations.of(fn).acknowledge({ id: `AwsSolutions-IAM5[Resource::<UploadsBucket5E5E9B64.Arn>/${prefix}/*]`, reason });
    }
  }
  const office = parts.office;
  // On the roles, which the office construct makes beside each office function (infra/office-worker.ts).
  for (const fn of [office.fn, parts.functions["office-jobs"]]) {
    if (!fn) continue;
    Validations.of(fn.role!).acknowledge({
      id: "AwsSolutions-IAM5[Resource::*]",
      reason:
        "The network interface calls Lambda makes to attach the office function to its VPC (ec2:CreateNetworkInterface and the like); EC2 authorises DescribeNetworkInterfaces only on *, and AWS's own AWSLambdaVPCAccessExecutionRole grants them so. The function's own code may not use them: a Deny on the same calls when they carry the function's ARN (lambda:SourceFunctionArn). Its logs are limited to its own log group.",
    });
  }
  Validations.of(office.prefixListLookup).acknowledge({
    id: "AwsSolutions-IAM5[Resource::*]",
    reason:
      "ec2:DescribeManagedPrefixLists, a read-only call EC2 authorises only on *, made once at deploy to find S3's prefix list for the office security group.",
  });
  // CDK's singleton function behind every AwsCustomResource of the stack.
  const singleton = Stack.of(office).node.tryFindChild(AWS_CUSTOM_RESOURCE_SINGLETON);
  if (singleton) {
    Validations.of(singleton).acknowledge({
      id: "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]",
      reason:
        "CDK's own AwsCustomResource function (deploy time only) logs with AWS's minimal logging policy; its one other permission is the prefix-list lookup.",
    });
  }
  if (parts.sesSandbox) {
    for (const name of ["auth-register", "auth-verify"]) {
      const fn = parts.functions[name];
      if (!fn) continue;
      Validations.of(fn).acknowledge({
        id: "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]",
        reason:
          "In the SES sandbox SES authorises a send against the recipient's verified identity as well, which is any identity of the account; the statement is pinned to the sender address by the condition ses:FromAddress. Deploy with -c sesSandbox=false after production access to drop it.",
      });
    }
  }
}

/** acknowledgeApiFindings: the API's validation, WAF, logging and authorisation choices. */
function acknowledgeApiFindings(restApi: RestApi): void {
  const api = Validations.of(restApi);
  api.acknowledge({
    id: "AwsSolutions-APIG2",
    reason:
      "Every request is validated by the function's zod contract (functions/http/contracts, one middy pipeline), which answers in Signet's error layout; gateway request validators would duplicate it with a different answer.",
  });
  api.acknowledge({
    id: "AwsSolutions-APIG3",
    reason:
      "No WAF by default: a web ACL costs at least USD 5 a month plus rules, too much for a personal deployment. Abuse is bounded by stage and register throttling, the API-key authorizer and reserved concurrency; a WAF can be attached to the stage (its 403s already speak the error layout).",
  });
  api.acknowledge({
    id: "AwsSolutions-APIG6",
    reason:
      "JSON access logs record every request (status, latency, authorizer and integration errors). Execution logging stays off: it costs per request and can record request details; turn it on in the stage while debugging.",
  });
  api.acknowledge({
    id: "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]",
    reason:
      "API Gateway's account-level CloudWatch role needs exactly this AWS managed policy to write the access logs; AWS documents it as the policy for that role.",
  });
  api.acknowledge({
    id: "AwsSolutions-APIG4",
    reason:
      "Only the public routes have no authorizer, by design (docs/api.md): health, info, openapi, docs, registration and code verification (how a key is obtained), verify, verify/key and verify/crl (anyone may check a signature), and the fallback that answers 404/405 and CORS preflights. test/infra/stack.test.ts checks that exactly the routes marked auth in functions/http/routes.ts use the authorizer.",
  });
  api.acknowledge({
    id: "AwsSolutions-COG4",
    reason:
      "Signet authenticates with its own API keys through a Lambda TOKEN authorizer (keys issued by e-mail, stored hashed in DynamoDB), not Cognito user pools; public routes are public by design (see APIG4).",
  });
}
