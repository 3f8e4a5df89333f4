/** MailEcho prints mail that reaches the local SES store, so codes can be read in the terminal. */
export interface MailEcho {
  stop(): void;
}

interface StoredMail {
  destination?: { to?: string[] };
  subject?: string;
  body?: { text?: string };
  at?: number;
}

/**
 * startMailEcho polls the local SES store and writes each new message to stdout. It is the local
 * stand-in's console, not the service's log: the deployed service never prints a code.
 */
export function startMailEcho(sesEndpoint: string, write: (line: string) => void = (line) => process.stdout.write(line)): MailEcho {
  let seen = 0;
  const timer = setInterval(async () => {
    try {
      const response = await fetch(`${sesEndpoint}/store`);
      const { emails } = (await response.json()) as { emails: StoredMail[] };
      if (emails.length < seen) seen = 0; // the store was cleared
      for (const mail of emails.slice(seen)) {
        write(`\n--- mail to ${mail.destination?.to?.join(", ") ?? "?"}: ${mail.subject ?? ""}\n${mail.body?.text ?? ""}\n---\n`);
      }
      seen = emails.length;
    } catch {
      // the store is gone (shutting down); try again next tick
    }
  }, 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
