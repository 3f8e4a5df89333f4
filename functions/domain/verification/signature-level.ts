import { SignetError } from "#domain/shared/errors.ts";

/** signatureLevels are the PAdES baseline levels Signet produces (ETSI EN 319 142-1). */
export const signatureLevels = ["B-B", "B-T", "B-LT", "B-LTA"] as const;

/** SignatureLevel is one PAdES baseline level. */
export type SignatureLevel = (typeof signatureLevels)[number];

/**
 * resolveLevel picks the level of a new signature: the one asked for, else B-T when a timestamp
 * authority is configured and B-B otherwise. B-T and above without a TSA is LEVEL_UNAVAILABLE.
 */
export function resolveLevel(requested: SignatureLevel | undefined, timestampConfigured: boolean): SignatureLevel {
  const level = requested ?? (timestampConfigured ? "B-T" : "B-B");
  if (level !== "B-B" && !timestampConfigured) {
    throw new SignetError(
      "LEVEL_UNAVAILABLE",
      `Signature level ${level} needs a timestamp authority, and none is configured: set SIGNET_TSA_URL, or ask for "level": "B-B".`,
      {
        details: [{ field: "level", issue: `${level} needs SIGNET_TSA_URL` }],
      },
    );
  }
  return level;
}
