import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { groupGone, killGroup } from "#adapters/libreoffice/process-group.ts";
import type { OfficeProcess } from "#adapters/libreoffice/slot-pool.ts";

/** WarmJob is one conversion for a running LibreOffice (file URLs and filter names). */
export interface WarmJob {
  input: string;
  output: string;
  inFilter: string;
  /** The import filter's options string (CSV: separator, quote, encoding, first line). */
  inFilterOptions?: string;
  outFilter: string;
  filterData?: Record<string, string | number | boolean>;
}

/** WarmOutcome is what the driver answered for one job. */
export type WarmOutcome =
  | { ok: true }
  | { ok: false; kind: "load" | "store"; error: string }
  // LibreOffice died or the bridge broke during the job; the instance is gone.
  | { ok: false; kind: "crash"; error: string }
  // LibreOffice did not come up (exited at once, or the driver could not start).
  | { ok: false; kind: "unavailable"; error: string }
  | { ok: false; kind: "timeout"; error: string };

/** WarmStartError is why a warm LibreOffice did not come up: too slow, or not at all. */
export class WarmStartError extends Error {
  constructor(
    readonly kind: "timeout" | "unavailable",
    message: string,
  ) {
    super(message);
    this.name = "WarmStartError";
  }
}

/** WarmOfficeOptions describe how to start one long-lived LibreOffice. */
export interface WarmOfficeOptions {
  python: string;
  driverPath: string;
  /** soffice argument vector, without --accept (added here). */
  argv: string[];
  pipeName: string;
  env: Record<string, string>;
  cwd: string;
  /** Wraps the driver's command (and so LibreOffice's) in the isolation: sandbox, namespaces, limits (isolation.ts). */
  confine?: (command: string, args: readonly string[]) => [string, string[]];
  /**
   * In a sandbox of its own the driver cannot watch this process (it sees only its PID namespace):
   * bubblewrap's --die-with-parent ends it instead.
   */
  sandboxed?: boolean;
}

type Message = Record<string, unknown>;

/**
 * WarmOffice is one long-lived soffice (with its own profile) driven by the python UNO driver
 * (uno-driver.py). One job at a time; the slot pool replaces it (new WarmOffice) after a crash,
 * a time-out or N jobs. The driver kills LibreOffice when this Node process is gone.
 */
export class WarmOffice implements OfficeProcess {
  /** conversions counts jobs this instance ran. */
  conversions = 0;
  private child?: ChildProcessWithoutNullStreams;
  private ready = false;
  private dead = false;
  private stderr = "";
  private inbox: Message[] = [];
  private waiter?: (message: Message | "exit") => void;

  constructor(private readonly options: WarmOfficeOptions) {}

  /** healthy tells whether the instance can take a job (started or not yet started). */
  healthy(): boolean {
    return !this.dead;
  }

  /** run converts one job before the deadline (epoch ms) on the started instance. */
  async run(job: WarmJob, deadline: number): Promise<WarmOutcome> {
    if (this.dead || !this.ready) return { ok: false, kind: "crash", error: "instance not running" };
    this.conversions++;
    this.child!.stdin.write(`${JSON.stringify(job)}\n`);
    const reply = await this.next(deadline);
    if (reply === "timeout") return { ok: false, kind: "timeout", error: "conversion time-out" };
    if (reply === "exit") return { ok: false, kind: "crash", error: `LibreOffice driver exited: ${this.stderr.slice(-500)}` };
    if (reply.ok === true) return { ok: true };
    const kind = reply.kind === "crash" || reply.kind === "store" ? reply.kind : "load";
    if (kind === "crash") this.kill();
    return { ok: false, kind, error: String(reply.error ?? "unknown") };
  }

  /** kill sends SIGKILL to the driver's process group, LibreOffice included, without waiting. */
  kill(): void {
    this.dead = true;
    killGroup(this.child?.pid);
  }

  /** stop kills this instance and resolves once its processes are gone. */
  async stop(): Promise<void> {
    this.kill();
    await groupGone(this.child?.pid);
  }

  /** start runs the driver and LibreOffice and resolves once it is ready; rejects with WarmStartError. */
  async start(deadline: number): Promise<void> {
    const { python, driverPath, argv, pipeName, env, cwd, confine = (command, args) => [command, [...args]], sandboxed = false } = this.options;
    const connect = `pipe,name=${pipeName};urp;StarOffice.ComponentContext`;
    const settings = {
      argv: [...argv, `--accept=${connect}`],
      connect: `uno:${connect}`,
      startTimeout: Math.max(1, (deadline - Date.now()) / 1000),
      parent: sandboxed ? null : process.pid,
    };
    // Without a sandbox the prefix execs into the driver (same process), so the driver's parent is
    // still this process. detached: a process group of its own, which LibreOffice stays in (or, in a
    // sandbox, bubblewrap, which takes the sandbox along when killed), so one kill ends both.
    const [command, args] = confine(python, [driverPath, JSON.stringify(settings)]);
    const child = spawn(command, args, { env, cwd, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    this.child = child;
    child.stdin.on("error", () => undefined); // EPIPE when the driver died; reported by "exit"
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-4096);
    });
    createInterface({ input: child.stdout }).on("line", (line) => {
      let message: Message;
      try {
        message = JSON.parse(line) as Message;
      } catch {
        return;
      }
      this.deliver(message);
    });
    child.once("error", (error) => {
      this.stderr += String(error);
      this.exited();
    });
    child.once("exit", () => this.exited());
    const hello = await this.next(deadline);
    if (hello === "timeout") throw new WarmStartError("timeout", "LibreOffice did not start in time");
    if (hello === "exit" || hello.event !== "ready") {
      this.kill();
      const why = hello === "exit" ? this.stderr.slice(-500) : JSON.stringify(hello);
      throw new WarmStartError("unavailable", `LibreOffice did not start: ${why}`);
    }
    this.ready = true;
  }

  private exited(): void {
    this.dead = true;
    killGroup(this.child?.pid);
    this.deliver("exit");
  }

  private deliver(message: Message | "exit"): void {
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter(message);
    } else if (message !== "exit") {
      this.inbox.push(message);
    }
  }

  private next(deadline: number): Promise<Message | "exit" | "timeout"> {
    const queued = this.inbox.shift();
    if (queued) return Promise.resolve(queued);
    if (this.dead) return Promise.resolve("exit");
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => {
          this.waiter = undefined;
          this.kill();
          resolve("timeout");
        },
        Math.max(0, deadline - Date.now()),
      );
      this.waiter = (message) => {
        clearTimeout(timer);
        resolve(message);
      };
    });
  }
}
