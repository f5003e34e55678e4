/** `trt keys list|create|revoke` (operators): the runtime's API keys (`/v1/admin/keys`). */
import type { Cli } from "../context.ts";
import { EXIT } from "../exit-codes.ts";
import { pretty } from "../render.ts";
import { table } from "../table.ts";

export async function keysList(cli: Cli): Promise<number> {
  const { keys } = await cli.client.listKeys(cli.flags.tenant);
  if (cli.flags.json) cli.stdout.write(`${pretty({ keys })}\n`);
  else if (keys.length === 0) cli.stdout.write("no keys\n");
  else {
    const rows = keys.map((k) => [
      k.key_id,
      k.tenant,
      k.agent,
      k.role,
      k.capabilities.join(","),
      k.channels.join(","),
      k.created_at,
      k.revoked_at,
    ]);
    cli.stdout.write(
      table(["KEY_ID", "TENANT", "AGENT", "ROLE", "CAPABILITIES", "CHANNELS", "CREATED", "REVOKED"], rows),
    );
  }
  return EXIT.ok;
}

/** The key goes to stdout alone (for `$(…)` or a pipe into a secret store); what it is, to stderr. */
export async function keysCreate(cli: Cli): Promise<number> {
  const f = cli.flags;
  const minted = await cli.client.createKey({
    tenant: f.tenant!,
    agent: f.agent!,
    capabilities: f.capability ?? [],
    channels: f.channel ?? [],
    ...(f.role ? { role: f.role } : {}),
  });
  if (f.json) {
    cli.stdout.write(`${pretty(minted)}\n`);
    return EXIT.ok;
  }
  cli.stdout.write(`${minted.key}\n`);
  cli.stderr.write(
    `✓ key ${minted.key_id} (tenant ${minted.tenant}, agent ${minted.agent}, role ${minted.role}): shown this once, above.\n`,
  );
  return EXIT.ok;
}

export async function keysRevoke(cli: Cli, [keyId]: string[]): Promise<number> {
  const revoked = await cli.client.revokeKey(keyId);
  cli.stdout.write(cli.flags.json ? `${pretty(revoked)}\n` : `✓ revoked ${keyId}\n`);
  return EXIT.ok;
}
