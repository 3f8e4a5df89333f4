import { Annotations } from "aws-cdk-lib";
import { EmailIdentity, Identity, type IConfigurationSet, type IEmailIdentity } from "aws-cdk-lib/aws-ses";
import type { Construct } from "constructs";

/**
 * senderIdentities gives the SES identities the sender address is authorised by.
 *
 * By default the stack creates an `AWS::SES::EmailIdentity` for the address, with the stack's
 * configuration set as its default. CloudFormation cannot adopt an identity that already exists
 * in the account and region (one verified by hand, a second stack with the same sender, or the
 * address's domain verified with DKIM): creating it again fails the deploy. With
 * `existing: true` nothing is created; the stack refers to the address's identity and to its
 * domain's (SES authorises a send by whichever of the two is verified), and the configuration set
 * is named on every send (SIGNET_SES_CONFIGURATION_SET) instead of being the identity's default.
 */
export function senderIdentities(scope: Construct, address: string, options: { existing: boolean; configurationSet: IConfigurationSet }): IEmailIdentity[] {
  if (!options.existing) {
    return [new EmailIdentity(scope, "SenderIdentity", { identity: Identity.email(address), configurationSet: options.configurationSet })];
  }
  const domain = address.slice(address.lastIndexOf("@") + 1);
  Annotations.of(scope).addInfo(
    `existingSenderIdentity: no SES identity is created; ${address} (or its domain ${domain}) must already be verified in this account and region ` +
      `(aws sesv2 get-email-identity --email-identity ${address} --query VerifiedForSendingStatus).`,
  );
  return [EmailIdentity.fromEmailIdentityName(scope, "SenderIdentity", address), EmailIdentity.fromEmailIdentityName(scope, "SenderDomainIdentity", domain)];
}
