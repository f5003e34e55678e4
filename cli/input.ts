/** `trt call`'s input argument: inline JSON, `@file`, or `-` for standard input. */
import { readFile } from "node:fs/promises";
import { UsageError } from "./exit-codes.ts";

export async function readInput(
  arg: string | undefined,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<unknown> {
  let text: string;
  let from: string;
  if (arg === undefined) return {};
  if (arg === "-") {
    from = "standard input";
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(Buffer.from(chunk as Buffer));
    text = Buffer.concat(chunks).toString("utf8");
  } else if (arg.startsWith("@")) {
    from = arg.slice(1);
    try {
      text = await readFile(from, "utf8");
    } catch (err) {
      throw new UsageError(
        `cannot read the input file ${from}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  } else {
    from = "the command line";
    text = arg;
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(
      `the input from ${from} is not valid JSON (${(err as Error).message}); pass a JSON value, @file or - for standard input`,
    );
  }
}
