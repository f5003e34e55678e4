/** What the grants page says a grant lets its client use (console/src/lib/grant-admin.ts), from the API's fields. */
import { describe, expect, it } from "vitest";
import { grantedScope } from "../../../console/src/lib/grant-admin.ts";

describe("a grant's scope in words", () => {
  it("names a bundle grant's bundle", () => {
    expect(grantedScope({ bundle: "support" })).toBe("the tools of bundle support");
  });

  it('reads "*" as every channel the key allows, and lists named channels', () => {
    expect(grantedScope({ channels: ["*"] })).toBe("every channel the key allows");
    expect(grantedScope({ channels: ["lab", "std"] })).toBe("channels lab, std");
    expect(grantedScope({ channels: [] })).toBe("no channel");
  });

  it("says so when a grant names neither", () => {
    expect(grantedScope({})).toBe("nothing named");
  });
});
