import { GetParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import { config } from "#config";
import { SignetError } from "#domain/shared/errors.ts";

/**
 * readSecureParameter reads one SSM Parameter Store SecureString (decrypted with the account's
 * aws/ssm key). Secrets such as the identity.p12 password live there instead of in the Lambda
 * environment or the CloudFormation template. The value is never logged; a failure says which
 * parameter (the name is not secret) and carries the SDK error as cause.
 */
export async function readSecureParameter(name: string, client: SSMClient = new SSMClient({ region: config.region, maxAttempts: 2 })): Promise<string> {
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
