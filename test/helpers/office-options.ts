import type { LibreOfficeConverterOptions } from "#adapters/libreoffice/converter.ts";
import { lazyConfig } from "#config";
import { libreOfficeOptions } from "#wiring/conversion.ts";

/**
 * officeOptions are a test's LibreOffice converter options: the settings table's defaults (read
 * from an empty environment through the wiring's own mapping) under the test's own. No profile
 * template unless the test gives one (locally the default is one shared folder under .signet).
 */
export function officeOptions(overrides: Partial<LibreOfficeConverterOptions> = {}): LibreOfficeConverterOptions {
  const { profileTemplate: _shared, ...defaults } = libreOfficeOptions(lazyConfig({}).conversion);
  return { ...defaults, ...overrides };
}
