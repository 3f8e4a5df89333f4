// Imported for its effect by the convert handler, before its other imports: on Lambda, LibreOffice
// starts as soon as this module is evaluated (the init phase), while the rest of the bundle loads.
// functions/convert.ts then waits for it, bounded. Sign and annotate do not import it: most of
// their calls never convert.
import { config } from "#config";
import { converter } from "#wiring/conversion.ts";

if (config.runtime === "aws") void converter().startEarly(0);
