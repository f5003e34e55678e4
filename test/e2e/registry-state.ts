/**
 * The registry's operator-set state as the admin API shows it: every provider's trust and
 * switch, every tool version's deprecation. global-setup records it when the stack comes up;
 * isolation.ts compares every file's leftovers with it.
 */
export interface RegistryState {
  /** provider → its trust and whether it is switched off. */
  providers: Record<string, { trust: string; disabled: boolean }>;
  /** `tool@version` → its deprecation (null when none). */
  deprecations: Record<string, unknown>;
}

/** Reads the state through `read` (a GET with an operator's credential). */
export async function registryState(
  read: (path: string) => Promise<{ status: number; body: any }>,
): Promise<RegistryState> {
  const state: RegistryState = { providers: {}, deprecations: {} };
  const list = await read("/v1/tools");
  for (const { name } of list.body.tools as { name: string }[]) {
    const tool = (await read(`/v1/tools/${name}`)).body;
    for (const v of tool.versions) {
      state.deprecations[`${name}@${v.version}`] = v.deprecation;
      for (const p of v.providers) state.providers[p.provider] = { trust: p.trust, disabled: p.disabled };
    }
  }
  return state;
}
