import { Arn, ArnFormat, RemovalPolicy, Stack } from "aws-cdk-lib";
import type { IVpc } from "aws-cdk-lib/aws-ec2";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import {
  CfnFirewallDomainList,
  CfnFirewallRuleGroup,
  CfnFirewallRuleGroupAssociation,
  CfnResolverQueryLoggingConfig,
  CfnResolverQueryLoggingConfigAssociation,
} from "aws-cdk-lib/aws-route53resolver";
import { Construct } from "constructs";

/**
 * s3Names are the names the office function resolves: the regional S3 endpoint, path style, and
 * its virtual-hosted names (<bucket>.s3.<region>.<suffix>), which the presigned URLs its callers
 * make (AWS SDK v3, regional endpoints in every region, us-east-1 included) point at.
 */
function s3Names(region: string, urlSuffix: string): string[] {
  return [`s3.${region}.${urlSuffix}`, `*.s3.${region}.${urlSuffix}`];
}

/** OfficeDnsFirewallProps: the VPC whose resolver is fenced. */
export interface OfficeDnsFirewallProps {
  vpc: IVpc;
}

/**
 * OfficeDnsFirewall fences the office VPC's resolver: a Route 53 Resolver DNS Firewall rule group
 * answers S3's regional names and NXDOMAIN to every other name, so a document that takes
 * LibreOffice over cannot carry data out in DNS queries to a name its author controls (the VPC
 * resolver otherwise answers any public name, and flow logs do not record it). Every query, the
 * blocked ones included, goes to a log group kept a week.
 */
export class OfficeDnsFirewall extends Construct {
  /** queryLogs is where the resolver logs each query of the VPC (name, type, answer, the rule's action). */
  readonly queryLogs: LogGroup;

  constructor(scope: Construct, id: string, props: OfficeDnsFirewallProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const allowed = new CfnFirewallDomainList(this, "S3Names", { name: `${stack.stackName}-office-s3`, domains: s3Names(stack.region, stack.urlSuffix) });
    const everything = new CfnFirewallDomainList(this, "AllNames", { name: `${stack.stackName}-office-all`, domains: ["*"] });
    const rules = new CfnFirewallRuleGroup(this, "Rules", {
      name: `${stack.stackName}-office-dns`,
      firewallRules: [
        {
          priority: 100,
          action: "ALLOW",
          firewallDomainListId: allowed.attrId,
          // S3's names answer with a CNAME (s3-r-w.<region>.amazonaws.com and the like); inspected,
          // the rule below would block that target and with it S3.
          firewallDomainRedirectionAction: "TRUST_REDIRECTION_DOMAIN",
        },
        { priority: 200, action: "BLOCK", blockResponse: "NXDOMAIN", firewallDomainListId: everything.attrId },
      ],
    });
    new CfnFirewallRuleGroupAssociation(this, "Association", {
      name: `${stack.stackName}-office-dns`,
      firewallRuleGroupId: rules.attrId,
      vpcId: props.vpc.vpcId,
      // 100-9900 is what customers may use; one group here.
      priority: 101,
      mutationProtection: "DISABLED",
    });
    this.queryLogs = new LogGroup(this, "QueryLogs", { retention: RetentionDays.ONE_WEEK, removalPolicy: RemovalPolicy.DESTROY });
    // The log group's ARN without the ":*" its Arn attribute ends in, as the resolver takes it.
    const destinationArn = Arn.format(
      { service: "logs", resource: "log-group", resourceName: this.queryLogs.logGroupName, arnFormat: ArnFormat.COLON_RESOURCE_NAME },
      stack,
    );
    const logging = new CfnResolverQueryLoggingConfig(this, "QueryLogging", { name: `${stack.stackName}-office-dns`, destinationArn });
    new CfnResolverQueryLoggingConfigAssociation(this, "QueryLoggingAssociation", {
      resolverQueryLogConfigId: logging.attrId,
      resourceId: props.vpc.vpcId,
    });
  }
}
