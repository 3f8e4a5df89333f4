/**
 * The LibreOffice base image of the container image (layers/libreoffice/Dockerfile), in one place:
 * its tag, the rules of its digest pin, and where LibreOffice ends up inside. No LibreOffice
 * version appears anywhere else: the Dockerfile finds soffice in the base (its version-free
 * `libreoffice` command) and links it at sofficeInImage.
 */

/**
 * libreOfficeBaseImage is the base of the container image, always pulled by digest: the tag says
 * which release line (LibreOffice 26.2 on the Lambda Node.js 22 image, x86_64: the base project
 * publishes no arm64 image), the digest which bytes.
 */
export const libreOfficeBaseImage = "public.ecr.aws/shelf/lambda-libreoffice-base:26.2-node22-x86_64";

/** sofficeInImage is the link the Dockerfile makes to the base image's soffice (SIGNET_SOFFICE). */
export const sofficeInImage = "/opt/signet/soffice";

/** pinCommand looks the digest of libreOfficeBaseImage up and records it, with the date, in cdk.json. */
const pinCommand = "npm run image:pin";

const digestPattern = /^sha256:[0-9a-f]{64}$/;

/**
 * checkBaseImagePin refuses a digest that is missing or malformed, and one reviewed for another
 * tag (cdk.json's libreOfficeBaseImageReviewed, "<date> <tag>", as `npm run image:pin` writes it),
 * each time saying how to get the right one.
 */
export function checkBaseImagePin(digest: string | undefined, reviewed: string | undefined): string {
  const lookUp =
    `: the LibreOffice image is built FROM ${libreOfficeBaseImage} pinned by digest. Run \`${pinCommand}\` (needs Docker; it runs ` +
    `docker buildx imagetools inspect ${libreOfficeBaseImage}) to write the digest and today's date into cdk.json, review it, and commit it; ` +
    "or pass -c libreOfficeBaseImageDigest=sha256:... for one deploy.";
  if (digest === undefined) throw new Error(`Context libreOfficeBaseImageDigest is missing${lookUp}`);
  if (!digestPattern.test(digest)) throw new Error(`Context libreOfficeBaseImageDigest "${digest}" is not sha256:<64 hex digits>${lookUp}`);
  const reviewedTag = reviewed?.split(" ")[1];
  if (reviewedTag !== undefined && reviewedTag !== libreOfficeBaseImage) {
    throw new Error(`The digest in cdk.json was reviewed for ${reviewedTag} (libreOfficeBaseImageReviewed), not for ${libreOfficeBaseImage}${lookUp}`);
  }
  return digest;
}
