// Imported for its effect by the convert and office handlers, before their other imports: on Lambda
// the converter starts as soon as this module is evaluated (the init phase), while the rest of the
// bundle loads. In the office function that starts LibreOffice; in convert it pings the office
// function, so its cold start overlaps convert's own. functions/convert.ts then waits for it,
// bounded. Sign and annotate do not import it: most of their calls never convert.
import { processContainer } from "#wiring/container.ts";
import { converter } from "#wiring/conversion.ts";

const container = processContainer();
if (container.config.runtime === "aws") void converter(container).startEarly(0);
