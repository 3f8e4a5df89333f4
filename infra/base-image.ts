/**
 * The LibreOffice base image of the container image (layers/libreoffice/Dockerfile), in one place:
 * its tag, which digest the image is built from, and where LibreOffice ends up inside. No
 * LibreOffice version appears anywhere else: the Dockerfile finds soffice in the base (its
 * version-free `libreoffice` command) and links it at sofficeInImage.
 */

/**
 * libreOfficeBaseImage is the base of the container image: the tag says which release line
 * (LibreOffice 26.2 on the Lambda Node.js 22 image, x86_64: the base project publishes no arm64
 * image), the digest (below) which bytes.
 */
export const libreOfficeBaseImage = "public.ecr.aws/shelf/lambda-libreoffice-base:26.2-node22-x86_64";

/** sofficeInImage is the link the Dockerfile makes to the base image's soffice (SIGNET_SOFFICE). */
export const sofficeInImage = "/opt/signet/soffice";

/** pinCommand looks the digest of libreOfficeBaseImage up and records it, with the date, in cdk.json. */
export const pinCommand = "npm run image:pin";

/** PIN_REVIEW_DAYS: a pin reviewed longer ago than this gets a warning (the base gets LibreOffice's security fixes). */
const PIN_REVIEW_DAYS = 90;

/** BaseImagePin is one reviewed digest: the tag it belongs to and the day it was looked up (YYYY-MM-DD). */
export interface BaseImagePin {
  digest: string;
  tag?: string;
  reviewed?: string;
}

/**
 * shippedPin is the pin the project ships, used when neither -c nor cdk.json gives one. None: the
 * base project overwrites the tag on every build and publishes no digest, so nothing here could be
 * reviewed once for everybody; the first synth resolves the tag and records it in cdk.json.
 */
export const shippedPin: BaseImagePin | undefined = undefined;

/** BaseImagePinError is a deployment setting to fix: app.ts prints its message alone, without a stack trace. */
export class BaseImagePinError extends Error {
  override name = "BaseImagePinError";
}

/** BaseImageInputs are what decides the base image: the pin from context (-c or cdk.json), the options, today. */
export interface BaseImageInputs {
  /** libreOfficeBaseImageDigest (context). */
  digest?: string | undefined;
  /** libreOfficeBaseImageReviewed (context): "<YYYY-MM-DD> <tag>", as `npm run image:pin` writes it. */
  reviewed?: string | undefined;
  /** -c requirePinnedBaseImage=true: no look-up, a reviewed pin or nothing. */
  requirePinned: boolean;
  /** Whether this CDK command builds assets (false under `cdk ls`, `cdk destroy`: Stack.bundlingRequired). */
  building: boolean;
  shipped?: BaseImagePin | undefined;
  today: Date;
}

/** BaseImagePlan: the reference to build FROM with its warnings, or a tag to look up first. */
export type BaseImagePlan = { kind: "ref"; ref: string; warnings: string[] } | { kind: "look-up"; tag: string };

const digestPattern = /^sha256:[0-9a-f]{64}$/;
const dayMs = 86_400_000;

/** pinnedRef is the reference the image is built FROM for a digest: the tag, for readers, and the digest, which wins. */
export function pinnedRef(digest: string): string {
  return `${libreOfficeBaseImage}@${digest}`;
}

/** reviewedLine is cdk.json's libreOfficeBaseImageReviewed for a pin made today: "<YYYY-MM-DD> <tag>". */
export function reviewedLine(today: Date): string {
  return `${today.toISOString().slice(0, 10)} ${libreOfficeBaseImage}`;
}

/** pinFromContext reads -c / cdk.json's digest and "<date> <tag>" line into a pin. */
function pinFromContext(digest: string, reviewed: string | undefined): BaseImagePin {
  const [date, tag] = (reviewed ?? "").trim().split(/\s+/);
  return { digest, ...(tag ? { tag } : {}), ...(date ? { reviewed: date } : {}) };
}

/** howToPin ends every message: what to run, and the override. */
const howToPin =
  `Run \`${pinCommand}\` (it asks the registry, no Docker needed) to write the digest and today's date into cdk.json, review it and commit it; ` +
  "or pass -c libreOfficeBaseImageDigest=sha256:... for one deploy.";

/** checkPin refuses a malformed digest and one reviewed for another tag; warns when the review is older than PIN_REVIEW_DAYS. */
function checkPin(pin: BaseImagePin, source: string, today: Date): string[] {
  if (!digestPattern.test(pin.digest)) throw new BaseImagePinError(`${source} "${pin.digest}" is not sha256:<64 hex digits>. ${howToPin}`);
  if (pin.tag !== undefined && pin.tag !== libreOfficeBaseImage) {
    throw new BaseImagePinError(`The digest in ${source} was reviewed for ${pin.tag}, not for ${libreOfficeBaseImage}. ${howToPin}`);
  }
  const reviewedAt = pin.reviewed === undefined ? Number.NaN : Date.parse(`${pin.reviewed}T00:00:00Z`);
  if (Number.isNaN(reviewedAt)) return pin.tag === undefined ? [] : [`The base image digest in ${source} has no review date. ${howToPin}`];
  const days = Math.floor((today.getTime() - reviewedAt) / dayMs);
  if (days <= PIN_REVIEW_DAYS) return [];
  return [
    `The LibreOffice base image digest ${pin.digest} (${source}) was reviewed ${days} days ago (${pin.reviewed}), more than ${PIN_REVIEW_DAYS}: ` +
      `the tag has had LibreOffice and Amazon Linux fixes since. Run \`${pinCommand}\`, review the new digest and commit cdk.json.`,
  ];
}

/**
 * planBaseImage decides what the image is built FROM, before any network: nothing to check when
 * nothing is built; else the digest from context (-c, then cdk.json), else the shipped pin, else
 * (unless -c requirePinnedBaseImage=true) the tag is to be looked up at synth.
 */
export function planBaseImage(inputs: BaseImageInputs): BaseImagePlan {
  // `cdk ls`, `cdk destroy`: no image is built, so no digest is needed and none is asked for.
  if (!inputs.building) return { kind: "ref", ref: libreOfficeBaseImage, warnings: [] };
  if (inputs.digest !== undefined) {
    const warnings = checkPin(pinFromContext(inputs.digest, inputs.reviewed), "context libreOfficeBaseImageDigest", inputs.today);
    return { kind: "ref", ref: pinnedRef(inputs.digest), warnings };
  }
  if (inputs.shipped) return { kind: "ref", ref: pinnedRef(inputs.shipped.digest), warnings: checkPin(inputs.shipped, "infra/base-image.ts", inputs.today) };
  if (inputs.requirePinned) {
    throw new BaseImagePinError(
      `Context libreOfficeBaseImageDigest is missing, and -c requirePinnedBaseImage=true asks for a reviewed digest of ${libreOfficeBaseImage}. ${howToPin}`,
    );
  }
  return { kind: "look-up", tag: libreOfficeBaseImage };
}
