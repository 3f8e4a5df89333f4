import { GetParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import { SignetError } from "#domain/shared/errors.ts";

/** ssmClientFor is the Parameter Store client of one region (two attempts: a cold start must not wait long). */
export function ssmClientFor(region: string): SSMClient {
  return new SSMClient({ region, maxAttempts: 2 });
}

/**
 * readSecureParameter reads one SSM Parameter Store SecureString (decrypted with the account's
 * aws/ssm key). Secrets such as the identity.p12 password live there instead of in the Lambda
 * environment or the CloudFormation template. The value is never logged; a failure says which
 * parameter (the name is not secret) and carries the SDK error as cause.
 */
export async function readSecureParameter(name: string, client: SSMClient): Promise<string> {
  try {
    const answer = await client.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
    const value = answer.Parameter?.Value;
    if (value === undefined) throw new Error(`parameter ${name} has no value`);
    return value;
  } catch (error) {
    throw new SignetError("SERVICE_UNAVAILABLE", "The signing identity's password cannot be read; retry later.", {
      cause: new Error(`SSM parameter ${name} could not be read`, { cause: error }),
    });
  }
}
