/**
 * API keys: random, shown once at creation, stored only as a SHA-256 hash in KV.
 *
 * KV layout: `hash:<sha256>` → the key's record (what a call is checked against);
 * `id:<key_id>` → the hash, with the record as metadata (listing, revocation). Revoking
 * deletes the `hash:` entry, so the key fails on its next use wherever that delete is
 * visible: at once where it was made (and everywhere under wrangler dev), within KV's
 * propagation delay (up to about 60 s) elsewhere.
 */
import { sha256Hex } from "../schema/sha256.ts";
import type { ApiKeyRecord, Caller } from "../contract.ts";
import { parseRole } from "./roles.ts";

export type { ApiKeyRecord };

export const API_KEY_PREFIX = "trt_";

export const hashKey = (key: string): Promise<string> => sha256Hex(key);

function randomToken(bytes: number): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...raw))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

export class ApiKeyStore {
  private readonly kv: KVNamespace;
  constructor(kv: KVNamespace) {
    this.kv = kv;
  }

  /** Creates a key; the returned `key` is the only time its secret exists outside the caller. */
  async create(
    fields: Omit<ApiKeyRecord, "key_id" | "created_at" | "revoked_at">,
  ): Promise<{ key: string; record: ApiKeyRecord }> {
    const key = `${API_KEY_PREFIX}${randomToken(32)}`;
    const record: ApiKeyRecord = { key_id: `key_${randomToken(9)}`, created_at: new Date().toISOString(), ...fields };
    const hash = await hashKey(key);
    await this.kv.put(`hash:${hash}`, JSON.stringify(record));
    await this.kv.put(`id:${record.key_id}`, hash, { metadata: record });
    return { key, record };
  }

  /** Erases a key nobody was shown (a bootstrap that lost its claim): no record, no listing. */
  async discard(key: string, keyId: string): Promise<void> {
    await Promise.all([this.kv.delete(`hash:${await hashKey(key)}`), this.kv.delete(`id:${keyId}`)]);
  }

  async find(key: string): Promise<ApiKeyRecord | undefined> {
    return this.findByHash(await hashKey(key));
  }

  /** The live key of that hash (an OAuth grant keeps its key's hash, never the key: src/oauth/grant.ts). */
  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const record = await this.kv.get<ApiKeyRecord>(`hash:${hash}`, "json");
    return record && !record.revoked_at ? record : undefined;
  }

  async list(tenant?: string): Promise<ApiKeyRecord[]> {
    const out: ApiKeyRecord[] = [];
    let cursor: string | undefined;
    do {
      const page: KVNamespaceListResult<ApiKeyRecord> = await this.kv.list<ApiKeyRecord>({ prefix: "id:", cursor });
      for (const k of page.keys) if (k.metadata && (!tenant || k.metadata.tenant === tenant)) out.push(k.metadata);
      cursor = page.list_complete ? undefined : page.cursor;
    } while (cursor);
    return out.sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
  }

  /** Revokes a key; false when there is no such key id. */
  async revoke(keyId: string): Promise<ApiKeyRecord | undefined> {
    const { value: hash, metadata } = await this.kv.getWithMetadata<ApiKeyRecord>(`id:${keyId}`);
    if (!hash || !metadata) return undefined;
    await this.kv.delete(`hash:${hash}`);
    const revoked = { ...metadata, revoked_at: metadata.revoked_at ?? new Date().toISOString() };
    await this.kv.put(`id:${keyId}`, hash, { metadata: revoked });
    return revoked;
  }
}

export function callerOfKey(record: ApiKeyRecord): Caller {
  // A record without a field grants nothing by it (least privilege).
  return {
    tenant: record.tenant,
    agent: record.agent,
    capabilities: record.capabilities ?? [],
    channels: record.channels ?? [],
    role: parseRole(record.role),
    ...(record.bundles ? { bundles: record.bundles } : {}),
  };
}
