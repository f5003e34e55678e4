/**
 * Bytes in JSON. MessagePack carries binary natively; JSON does not, so wherever a value is
 * written as JSON (responses, the stored record, the event log) a Uint8Array becomes
 * `{"$base64": "…"}` and is read back as bytes, so a MessagePack caller gets bytes back even
 * from a stored result.
 */

export function bytesReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return { $base64: toBase64(value) };
  if (value instanceof ArrayBuffer) return { $base64: toBase64(new Uint8Array(value)) };
  return value;
}

export function bytesReviver(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === "$base64" && typeof (value as { $base64: unknown }).$base64 === "string") {
      return fromBase64((value as { $base64: string }).$base64);
    }
  }
  return value;
}

export const toJson = (value: unknown): string => JSON.stringify(value, bytesReplacer);
export const fromJson = <T = unknown>(text: string): T => JSON.parse(text, bytesReviver) as T;

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function fromBase64(text: string): Uint8Array {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
