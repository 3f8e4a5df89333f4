// Whether LibreOffice can run here, for the local start-up check and the health probe. Cheap: it
// only looks for the soffice binary (a few stat calls), it starts nothing.
import { locateSoffice } from "#adapters/libreoffice/profile.ts";
import type { Readiness } from "#domain/shared/readiness.ts";

/** libreOfficeReadiness is up when the soffice binary (`configured`: SIGNET_SOFFICE; else PATH, /opt/...) is found and executable. */
export async function libreOfficeReadiness(configured: string | undefined): Promise<Readiness> {
  if (await locateSoffice(configured)) return { status: "up" };
  return {
    status: "down",
    message: configured
      ? `LibreOffice is not at SIGNET_SOFFICE=${configured} (not an executable file): fix SIGNET_SOFFICE, or unset it to search PATH`
      : "LibreOffice (soffice) was not found on PATH, in /opt or in /usr/lib/libreoffice: install it (apt-get install libreoffice-writer python3-uno) or set SIGNET_SOFFICE to its soffice binary",
  };
}
